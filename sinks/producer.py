"""Publishing records we own (DLQ entries, memory events, audit records) and waiting for acks."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from aiokafka import AIOKafkaProducer
from aiokafka.errors import KafkaError

from sinks.base import Pingable
from sinks.errors import SinkUnavailableError


@dataclass(frozen=True)
class OutRecord:
    topic: str
    key: bytes | None
    value: bytes
    headers: tuple[tuple[str, bytes], ...] | None = None  # e.g. the W3C trace context of a retained turn


class RecordProducer(Pingable, Protocol):
    """A producer whose `ping` says whether the broker is reachable."""

    async def send_many(self, records: Sequence[OutRecord]) -> None:
        """Send every record and return once the broker acknowledged all of them, or raise
        `SinkUnavailableError`."""


class KafkaRecordProducer:
    """An aiokafka producer with acks=all; any failure raises `SinkUnavailableError`.

    One per process: the worker's pipeline, the recall audit and the sidecar's turn publisher share
    it. The owner calls `start()` before use and `stop()` after; sending outside that is a failure.
    """

    def __init__(self, bootstrap_servers: str, client_id: str = "beliefstream", ack_timeout_s: float = 40.0) -> None:
        self.ack_timeout_s = ack_timeout_s
        self._producer = AIOKafkaProducer(
            bootstrap_servers=bootstrap_servers,
            client_id=client_id,
            acks="all",
            linger_ms=5,
            max_request_size=4 * 1024 * 1024,
            request_timeout_ms=max(1000, int(ack_timeout_s * 1000)),
        )
        self._started = False

    async def start(self) -> None:
        try:
            await self._producer.start()
        except (KafkaError, OSError) as exc:
            await self._producer.stop()  # close the connections the failed start opened
            raise SinkUnavailableError(f"cannot reach the broker: {exc}") from exc
        self._started = True

    async def stop(self) -> None:
        """Flush and close, waiting no longer than `ack_timeout_s` for a broker that does not answer;
        safe to call more than once, or without a start."""
        self._started = False
        try:
            await asyncio.wait_for(self._producer.stop(), self.ack_timeout_s)
        except (TimeoutError, KafkaError, OSError):
            pass  # what was not acknowledged by now is not: its owner keeps it (the intake, the outbox)

    async def send_many(self, records: Sequence[OutRecord]) -> None:
        if not records:
            return
        if not self._started:
            raise SinkUnavailableError("the producer is not started (or already stopped)")
        try:
            futures = [
                await self._producer.send(
                    r.topic, key=r.key, value=r.value, headers=list(r.headers) if r.headers else None
                )
                for r in records
            ]
            await asyncio.gather(*futures)
        except (KafkaError, OSError) as exc:
            raise SinkUnavailableError(f"publishing to the broker failed: {exc}") from exc

    async def ping(self) -> bool:
        if not self._started:
            return False
        try:
            await asyncio.wait_for(self._producer.client.fetch_all_metadata(), timeout=2.0)
        except (KafkaError, OSError, TimeoutError):
            return False
        return True
