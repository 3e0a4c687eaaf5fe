"""The ingest agent: a thin loop that hands micro-batches of raw turns to the write pipeline.

`take_events` acks a batch only when the loop comes back for the next one, i.e. after
`WritePipeline.process` returned with every sink acknowledged; faust then commits the offsets.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import faust

from agents.decode import RawTurn
from agents.pipeline import BatchReport, WritePipeline
from streams.settings import Settings
from streams.topics import Topics

log = logging.getLogger(__name__)


def raw_turn(event: faust.EventT) -> RawTurn:
    message = event.message
    return RawTurn(message.value, message.key, message.topic, message.partition, message.offset)


def register_ingest_agent(
    app: faust.App,
    topics: Topics,
    pipeline: WritePipeline,
    settings: Settings,
    on_batch: Callable[[BatchReport], None] | None = None,
) -> faust.types.AgentT:
    """Attach the ingest agent to `app`; `on_batch` sees each batch's report (progress, metrics)."""

    async def ingest(stream: faust.StreamT) -> None:
        async for events in stream.take_events(settings.batch_size, within=settings.batch_within_s):
            report = await pipeline.process([raw_turn(event) for event in events])
            log.debug("batch: %s", report)
            if on_batch is not None:
                on_batch(report)

    return app.agent(topics.turns, name=f"{settings.app_id}.ingest")(ingest)
