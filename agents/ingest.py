"""The ingest agent: micro-batches of raw turns through the write pipeline, acked only once written.

Acknowledgement is manual (`stream.noack()`, then `stream.ack(event)` after every sink of the
batch acknowledged). faust's own `take()` family acks a buffered batch when the stream stops,
even one whose write never happened (a stop during a database outage), which would lose it;
here an unwritten batch is simply never acked and is delivered again after a restart.

Batches overlap: while batch N is embedded (on the model's thread) and written (SQL, vectors,
events: mostly waiting on I/O and other threads), batch N+1 is decoded and extracted and its
embedding queued behind N's, so the model always has the next batch waiting. Writes stay strictly
in order, and batch N is acked before batch N+1's write starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

import faust

from agents.decode import RawTurn
from agents.pipeline import BatchReport, PreparedBatch, WritePipeline
from streams.settings import Settings
from streams.topics import Topics

log = logging.getLogger(__name__)


def raw_turn(event: faust.EventT) -> RawTurn:
    message = event.message
    return RawTurn(message.value, message.key, message.topic, message.partition, message.offset)


async def next_batch(queue: asyncio.Queue, size: int, within: float) -> list[faust.EventT]:
    """Up to `size` events: whatever arrives within `within` seconds of the first one."""
    batch = [await queue.get()]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while len(batch) < size:
        if not queue.empty():
            batch.append(queue.get_nowait())
            continue
        remaining = deadline - loop.time()
        if remaining <= 0:
            break
        try:
            batch.append(await asyncio.wait_for(queue.get(), remaining))
        except TimeoutError:
            break
    return batch


def register_ingest_agent(
    app: faust.App,
    topics: Topics,
    pipeline: WritePipeline,
    settings: Settings,
    on_batch: Callable[[BatchReport], None] | None = None,
) -> faust.types.AgentT:
    """Attach the ingest agent to `app`; `on_batch` sees each batch's report (progress, metrics)."""

    async def ingest(stream: faust.StreamT) -> None:
        events: asyncio.Queue = asyncio.Queue(maxsize=2 * settings.batch_size)  # backpressure on the fetcher

        async def pump() -> None:
            async for event in stream.noack().events():
                await events.put(event)

        async def write_and_ack(prepared: PreparedBatch, batch: list[faust.EventT]) -> None:
            report = await pipeline.persist(prepared)
            for event in batch:
                await stream.ack(event)
            log.debug("batch: %s", report)
            if on_batch is not None:
                on_batch(report)

        pumping = asyncio.create_task(pump(), name="ingest-pump")
        writing: asyncio.Task | None = None
        waiting: PreparedBatch | None = None  # read, not yet handed to a write
        try:
            while True:
                batch = await next_batch(events, settings.batch_size, settings.batch_within_s)
                waiting = await pipeline.prepare([raw_turn(event) for event in batch])
                if writing is not None:
                    await writing  # order: batch N is written and acked before N+1's write starts
                writing = asyncio.create_task(write_and_ack(waiting, batch), name="ingest-write")
                waiting = None
        finally:
            pumping.cancel()
            if waiting is not None:
                pipeline.discard(waiting)
            if writing is not None and not writing.done():
                # a stop: let the write in flight finish (it gives up by itself if a sink is down)
                await asyncio.wait({writing}, timeout=settings.sink_retry_max_s + 5)
                writing.cancel()
            for task in (pumping, writing):
                if task is not None:
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await task

    return app.agent(topics.turns, name=f"{settings.app_id}.ingest")(ingest)
