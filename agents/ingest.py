"""The ingest agent: micro-batches of raw turns through the write pipeline, acked only once written.

Acknowledgement is manual (`stream.noack()`, then `stream.ack(event)` after every sink of the
batch acknowledged). faust's own `take()` family acks a buffered batch when the stream stops,
even one whose write never happened (a stop during a database outage), which would lose it;
here an unwritten batch is simply never acked and is delivered again after a restart.

Batches overlap: a writer task writes batches strictly in order (SQL, vectors, events; batch N
is acked before batch N+1's write starts), while the agent reads up to
`ingest_lookahead_batches` batches ahead: decoded, extracted, and their embeddings already running
in the model processes. So the models always have the next batches to work on, side by side.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

import faust

from agents.batch import BatchReport, PreparedBatch
from agents.pipeline import WritePipeline
from reading.decode import RawTurn
from streams.settings import Settings
from streams.topics import Topics

log = logging.getLogger(__name__)


def raw_turn(event: faust.EventT) -> RawTurn:
    message = event.message
    return RawTurn(
        message.value, message.key, message.topic, message.partition, message.offset, message.headers, message.timestamp
    )


async def next_batch(
    queue: asyncio.Queue, size: int, within: float, writing: Callable[[], bool] = lambda: True
) -> list[faust.EventT]:
    """Up to `size` events: whatever arrives within `within` seconds of the first one, but cut as
    soon as none is waiting while nothing is `writing` (an idle writer: waiting for more would only
    delay the turns in hand)."""
    batch = [await queue.get()]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while len(batch) < size:
        if not queue.empty():
            batch.append(queue.get_nowait())
            continue
        remaining = deadline - loop.time()
        if remaining <= 0 or not writing():
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
    on_written: Callable[[list[RawTurn]], Awaitable[None]] | None = None,
) -> faust.types.AgentT:
    """Attach the ingest agent to `app`; `on_batch` sees each batch's report (progress, metrics),
    `on_written` the batch's records once every sink acknowledged it and before its offsets are
    (the windowed maintenance jobs record who wrote)."""

    async def ingest(stream: faust.StreamT) -> None:
        events: asyncio.Queue = asyncio.Queue(maxsize=2 * settings.batch_size)  # backpressure on the fetcher

        async def pump() -> None:
            async for event in stream.noack().events():
                await events.put(event)

        persisting = False

        def busy() -> bool:
            """A batch is being written, or waits for the writer."""
            return persisting or not ready.empty()

        async def write_and_ack(prepared: PreparedBatch, batch: list[faust.EventT]) -> None:
            nonlocal persisting
            persisting = True
            try:
                report = await pipeline.persist(prepared)
                if on_written is not None:
                    await on_written([raw_turn(event) for event in batch])
                for event in batch:
                    await stream.ack(event)
            finally:
                persisting = False
            log.debug("batch: %s", report)
            if on_batch is not None:
                on_batch(report)

        async def write_in_order() -> None:
            while (item := await ready.get()) is not None:
                await write_and_ack(*item)

        ready: asyncio.Queue = asyncio.Queue(maxsize=settings.ingest_lookahead_batches)
        pumping = asyncio.create_task(pump(), name="ingest-pump")
        writing = asyncio.create_task(write_in_order(), name="ingest-write")
        waiting: PreparedBatch | None = None  # read, not yet handed to the writer
        try:
            while True:
                batch = await next_batch(events, settings.batch_size, settings.batch_within_s, busy)
                waiting = await pipeline.prepare([raw_turn(event) for event in batch])
                handing = asyncio.ensure_future(ready.put((waiting, batch)))
                await asyncio.wait({handing, writing}, return_when=asyncio.FIRST_COMPLETED)
                if not handing.done():
                    handing.cancel()
                    writing.result()  # the writer stopped: raise what stopped it
                    raise RuntimeError("the ingest writer stopped")
                waiting = None
        finally:
            pumping.cancel()
            unwritten = [waiting] if waiting is not None else []
            while not ready.empty():
                unwritten.append(ready.get_nowait()[0])
            for prepared in unwritten:
                pipeline.discard(prepared)  # never acked: delivered again after a restart
            if not writing.done():
                # a stop: let the write in flight finish (it gives up by itself if a sink is down)
                ready.put_nowait(None)
                await asyncio.wait({writing}, timeout=settings.sink_retry_max_s + 5)
                writing.cancel()
            for task in (pumping, writing):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    return app.agent(topics.turns, name=f"{settings.app_id}.ingest")(ingest)
