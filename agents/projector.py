"""The vector projector: the one road from SQL to the vector index.

Write paths commit their rows with what those rows owe the index (`sinks.vector_outbox`): a row to
(re)write, a tombstone to delete. The projector drains that outbox: tombstones first (a revived id
keeps its point), then memory and episode points, upserted whole (vector and current payload), so
a payload change is an upsert like any other. Entries are marked done only after the index
acknowledged; a replayed entry rewrites the same point, so a crash in between loses nothing and
duplicates nothing. An unavailable index is waited out with exponential backoff; a point the
index refuses as a value is logged and left out rather than holding back the rest.

One projector per embedded Qdrant Edge shard (its single owner); with a Qdrant server any number
may run. Recall hydrates every hit from SQL, so a lagging point never surfaces a revoked or erased
memory; the lag is reported as a backlog and the age of its oldest entry.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from sinks.base import VectorIndex, VectorPoint, episode_payload, vector_payload
from sinks.errors import SinkError
from sinks.vector_outbox import Backlog, VectorOutbox

log = logging.getLogger(__name__)


class VectorProjector:
    """Drains a `VectorOutbox` into a `VectorIndex`; `run` keeps doing it until stopped."""

    def __init__(
        self,
        outbox: VectorOutbox,
        vectors: VectorIndex,
        *,
        batch_size: int = 1000,
        poll_s: float = 1.0,
        retry_initial_s: float = 0.5,
        retry_max_s: float = 30.0,
        on_backlog: Callable[[Backlog], None] | None = None,
    ) -> None:
        self.outbox = outbox
        self.vectors = vectors
        self.batch_size = batch_size
        self.poll_s = poll_s
        self.retry_initial_s = retry_initial_s
        self.retry_max_s = retry_max_s
        self.on_backlog = on_backlog
        self.failing = False  # the last pass failed: `run` is backing off
        self.running = False
        self.last_backlog = Backlog(0, None)
        self._lock = asyncio.Lock()
        self._wake = asyncio.Event()
        self._started = 0  # passes begun / finished, so `settle` can wait for one begun after it
        self._finished = 0
        self._progress = asyncio.Condition()

    # -- one pass ---------------------------------------------------------------------------------

    async def drain(self) -> int:
        """Project every owed entry; how many. Raises `SinkError` if the index or SQL is down."""
        async with self._lock:
            self._started += 1
            try:
                return await self._deletes() + await self._memories() + await self._episodes()
            finally:
                self._finished += 1
                async with self._progress:
                    self._progress.notify_all()

    async def _deletes(self) -> int:
        done = 0
        while stones := await self.outbox.tombstones(self.batch_size):
            doomed = [stone.point_id for stone in stones if not stone.revived]
            if doomed:
                await self.vectors.delete(doomed)
            await self.outbox.clear_tombstones([stone.seq for stone in stones])
            done += len(stones)
            if len(stones) < self.batch_size:
                break
        return done

    async def _memories(self) -> int:
        return await self._upserts(
            self.outbox.pending_vectors,
            lambda p: VectorPoint(p.memory.id, p.embedding, vector_payload(p.memory)),
            self.outbox.mark_vectors_synced,
        )

    async def _episodes(self) -> int:
        return await self._upserts(
            self.outbox.pending_episode_vectors,
            lambda p: VectorPoint(p.episode.id, p.embedding, episode_payload(p.episode)),
            self.outbox.mark_episode_vectors_synced,
        )

    async def _upserts(
        self,
        pending_of: Callable[[int], Awaitable[Sequence[Any]]],
        point_of: Callable[[Any], VectorPoint],
        mark_synced: Callable[[Sequence[str]], Awaitable[None]],
    ) -> int:
        """Page through pending rows: write their points whole, then mark them synced."""
        done = 0
        while pending := await pending_of(self.batch_size):
            points = [point_of(p) for p in pending]
            await self._write(points)
            await mark_synced([point.id for point in points])
            done += len(pending)
            if len(pending) < self.batch_size:
                break
        return done

    async def _write(self, points: list[VectorPoint]) -> None:
        """Upsert; a point the index refuses as a value (a vector of the wrong size) is logged and
        left out, one by one, so that it never holds back every point after it."""
        try:
            await self.vectors.write(points)
        except (ValueError, TypeError) as exc:
            if len(points) == 1:
                log.error("vector point %s refused by the index and left out: %s", points[0].id, exc)
                return
            for point in points:
                await self._write([point])

    # -- lag --------------------------------------------------------------------------------------

    async def backlog(self) -> Backlog:
        """What the index owes now (read from SQL), also handed to `on_backlog`."""
        self.last_backlog = await self.outbox.backlog()
        if self.on_backlog is not None:
            self.on_backlog(self.last_backlog)
        return self.last_backlog

    # -- the loop ---------------------------------------------------------------------------------

    def wake(self) -> None:
        """Something was committed: drain now rather than at the next poll (ignored while backing off)."""
        self._wake.set()

    async def settle(self, timeout_s: float = 2.0) -> bool:
        """Wait (at most `timeout_s`) for a pass that begins after this call; True if one finished.

        For a request that wants its own change in the index before it answers. Without a running
        loop the pass runs here; while the index is failing nobody waits (the outbox keeps the change).
        """
        if self.failing:
            return False
        try:
            async with asyncio.timeout(timeout_s):
                if not self.running:
                    await self.drain()
                    return True
                target = self._started + 1
                self.wake()
                async with self._progress:
                    await self._progress.wait_for(lambda: self._finished >= target)
                return True
        except (TimeoutError, SinkError) as exc:
            log.info("vector projection did not settle now (%s); the projector keeps at it", type(exc).__name__)
            return False

    async def run(self, stop: asyncio.Event) -> None:
        """Drain until `stop` is set: at each wake-up or every `poll_s`, backing off while failing."""
        self.running = True
        delay = self.retry_initial_s
        try:
            while not stop.is_set():
                self._wake.clear()
                wait = self.poll_s
                try:
                    projected = await self.drain()
                    if self.failing:
                        log.info("vector index reachable again; projected %d owed points", projected)
                    self.failing, delay = False, self.retry_initial_s
                except Exception as exc:  # noqa: BLE001 - the outbox keeps every entry: never give up
                    self.failing, wait = True, delay
                    delay = min(delay * 2, self.retry_max_s)
                    logger = log.warning if isinstance(exc, SinkError) else log.exception
                    logger("vector projection failed; retrying in %.1fs: %s", wait, exc)
                with contextlib.suppress(SinkError):
                    await self.backlog()
                await self._pause(wait, stop)
        finally:
            self.running = False

    async def _pause(self, seconds: float, stop: asyncio.Event) -> None:
        """Sleep `seconds`, cut short by `stop`, and by a wake-up unless backing off."""
        waits = [asyncio.ensure_future(stop.wait())]
        if not self.failing:
            waits.append(asyncio.ensure_future(self._wake.wait()))
        try:
            await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for wait in waits:
                wait.cancel()
