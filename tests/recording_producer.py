"""A RecordProducer that keeps what it is given: for tests of code that publishes, without a broker."""

from __future__ import annotations

from collections.abc import Sequence

from sinks.producer import OutRecord


class RecordingProducer:
    def __init__(self) -> None:
        self.records: list[OutRecord] = []

    async def send_many(self, records: Sequence[OutRecord]) -> None:
        self.records.extend(records)

    async def ping(self) -> bool:
        return True

    def on(self, topic: str) -> list[OutRecord]:
        """What was sent to `topic`, in order."""
        return [r for r in self.records if r.topic == topic]
