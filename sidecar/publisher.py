"""Where `/v1/retain` puts turns: the turns topic (contract §1), behind a two-method protocol.

The HTTP layer only needs `publish` and `ping`, so tests use a recording fake and the real path is
`TopicTurnPublisher` over the process's one `RecordProducer` (shared with the worker in `dev`).
A turn the broker did not acknowledge (acks=all) within `ack_timeout_s` is reported as
`Unavailable` (503): the client retries the same POST, and the deterministic job ids make that
harmless. In `dev` (`replayed`: the worker re-publishes the intake whenever the embedded broker comes
back) the turn is already durable in the SQL intake, so a broker that is away costs no 503 and no
wait: while `replayed` is clear nothing is published, and a failed publish is left to the intake.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from beliefs.records import Turn
from sidecar.errors import Unavailable
from sinks.errors import SinkUnavailableError
from sinks.producer import OutRecord, RecordProducer
from streams.tracing import trace_headers

logger = logging.getLogger(__name__)


@runtime_checkable
class TurnPublisher(Protocol):
    async def publish(self, turns: Sequence[Turn]) -> None:
        """Publish every turn, acknowledged, or raise `Unavailable`."""

    async def ping(self) -> bool:
        """Is the broker reachable? Never raises."""


def turn_record(topic: str, turn: Turn) -> OutRecord:
    """The wire form of a turn: key `tenant:user` (one user's turns in order), value the turn JSON,
    headers the trace context of the retain span (when tracing is on)."""
    return OutRecord(topic=topic, key=turn.key.encode(), value=turn.model_dump_json().encode(), headers=trace_headers())


class TopicTurnPublisher:
    """Turns onto the turns topic through a `RecordProducer` the caller owns (started and stopped)."""

    def __init__(
        self,
        producer: RecordProducer,
        topic: str,
        *,
        ack_timeout_s: float = 10.0,
        replayed: asyncio.Event | None = None,
    ) -> None:
        self.producer = producer
        self.topic = topic
        self.ack_timeout_s = ack_timeout_s
        self.replayed = replayed  # set while the broker is up and the intake went out on it

    async def publish(self, turns: Sequence[Turn]) -> None:
        if self.replayed is not None and not self.replayed.is_set():
            return  # the broker is away: the turns wait in the intake, re-published once it is back
        try:
            await asyncio.wait_for(
                self.producer.send_many([turn_record(self.topic, turn) for turn in turns]), self.ack_timeout_s
            )
        except (SinkUnavailableError, TimeoutError) as exc:
            if self.replayed is not None:
                logger.debug("publishing %d turn(s) failed (%r); the intake keeps them", len(turns), exc)
                return
            logger.warning("publishing %d turn(s) to %s failed: %r", len(turns), self.topic, exc)
            raise Unavailable("the broker did not acknowledge the turns; retry the same request") from exc

    async def ping(self) -> bool:
        return await self.producer.ping()
