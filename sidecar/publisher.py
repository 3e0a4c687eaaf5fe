"""Where `/v1/retain` puts turns: the turns topic (contract §1), behind a two-method protocol.

The HTTP layer only needs `publish` and `ping`, so tests use a recording fake and the real path is
`KafkaTurnPublisher`. A turn the broker did not acknowledge (acks=all) is reported as `Unavailable`
(503): the client retries the same POST, and the deterministic job ids make that harmless.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from aiokafka import AIOKafkaProducer
from aiokafka.errors import KafkaError

from sidecar.errors import Unavailable
from streams.records import Turn

logger = logging.getLogger(__name__)


@runtime_checkable
class TurnPublisher(Protocol):
    async def publish(self, turns: Sequence[Turn]) -> None:
        """Publish every turn, acknowledged, or raise `Unavailable`."""

    async def ping(self) -> bool:
        """Is the broker reachable? Never raises."""


class KafkaTurnPublisher:
    """Turns onto a Kafka topic with aiokafka: key `tenant:user` (per-user order), value the turn JSON.

    The caller owns the lifecycle: `await start()` before serving, `await stop()` after.
    """

    def __init__(self, bootstrap_servers: str, topic: str, ping_timeout_s: float = 2.0) -> None:
        self.bootstrap_servers = bootstrap_servers.removeprefix("kafka://")
        self.topic = topic
        self.ping_timeout_s = ping_timeout_s
        self._producer: AIOKafkaProducer | None = None

    async def start(self) -> None:
        producer = AIOKafkaProducer(bootstrap_servers=self.bootstrap_servers, acks="all")
        try:
            await producer.start()
        except KafkaError as exc:
            await producer.stop()
            raise Unavailable(f"the broker at {self.bootstrap_servers} is unreachable") from exc
        self._producer = producer

    async def stop(self) -> None:
        producer, self._producer = self._producer, None
        if producer is not None:
            await producer.stop()

    async def publish(self, turns: Sequence[Turn]) -> None:
        if self._producer is None:
            raise Unavailable("the turn publisher is not started")
        try:
            # Queue every send first so they batch; then wait for each acknowledgement.
            pending = [
                await self._producer.send(
                    self.topic, value=turn.model_dump_json().encode(), key=turn.key.encode()
                )
                for turn in turns
            ]
            await asyncio.gather(*pending)
        except KafkaError as exc:
            logger.warning("publishing %d turn(s) to %s failed: %r", len(turns), self.topic, exc)
            raise Unavailable("the broker did not acknowledge the turns; retry the same request") from exc

    async def ping(self) -> bool:
        if self._producer is None:
            return False
        try:
            await asyncio.wait_for(self._producer.client.fetch_all_metadata(), self.ping_timeout_s)
        except (KafkaError, TimeoutError, OSError):
            return False
        return True
