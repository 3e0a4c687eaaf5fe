"""A buffer flushed in the background: every `interval_s`, at `max_items`, and on close.

Recall records its reads (access counts, audit) without waiting for a write: `add` only appends.
A flush writes at most `max_items` per call of the flush function (one short transaction each, which
on SQLite yields to the write path: `sinks.sql.engine.WriteGate`). A failed flush puts its items back
at the front of the buffer, up to `max_buffer` (beyond which the oldest are dropped with a warning
rather than growing without bound), and the loop backs off (doubling up to `max_backoff_s`), saying
so once when flushes start failing and once when they go through again. Closing while the
background loop writes lets that write finish, then flushes the rest.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Generic, TypeVar

T = TypeVar("T")

logger = logging.getLogger(__name__)


class BatchFlusher(Generic[T]):
    def __init__(
        self,
        name: str,
        flush: Callable[[list[T]], Awaitable[None]],
        *,
        interval_s: float = 1.0,
        max_items: int = 500,
        max_buffer: int = 100_000,
        max_backoff_s: float = 30.0,
    ) -> None:
        if interval_s <= 0 or max_items < 1 or max_buffer < max_items:
            raise ValueError("need interval_s > 0 and 1 <= max_items <= max_buffer")
        self.name = name
        self._flush = flush
        self.interval_s = interval_s
        self.max_items = max_items
        self.max_buffer = max_buffer
        self.max_backoff_s = max(interval_s, max_backoff_s)
        self.failing = False  # the last flush failed
        self._buffer: list[T] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()

    def add(self, items: Iterable[T]) -> None:
        """Buffer items; never blocks, never raises on a store outage."""
        self._buffer.extend(items)
        overflow = len(self._buffer) - self.max_buffer
        if overflow > 0:
            del self._buffer[:overflow]
            logger.warning("%s: buffer full, dropped the %d oldest entries", self.name, overflow)
        if len(self._buffer) >= self.max_items:
            self._wake.set()

    @property
    def pending(self) -> int:
        return len(self._buffer)

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=f"beliefstream-{self.name}")

    async def close(self) -> None:
        """Stop the background loop and flush what is left (once; failures are logged)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.flush()

    async def flush(self) -> bool:
        """Hand everything buffered now to the flush function, `max_items` at a time; False when a
        call failed (its items and the rest stay buffered for the next flush)."""
        async with self._lock:
            self._wake.clear()
            todo = len(self._buffer)  # what came in meanwhile waits for the next flush
            while todo > 0:
                batch = self._buffer[: min(todo, self.max_items)]
                del self._buffer[: len(batch)]
                todo -= len(batch)
                try:
                    await self._flush(batch)
                except Exception as exc:
                    self.add_front(batch)
                    if not self.failing:
                        logger.warning("%s: flushes failing (%r); %d entries kept, retrying with back-off",
                                       self.name, exc, len(self._buffer))
                    self.failing = True
                    return False
            if self.failing:
                logger.warning("%s: flushes go through again", self.name)
            self.failing = False
            return True

    def add_front(self, items: list[T]) -> None:
        self._buffer[:0] = items
        overflow = len(self._buffer) - self.max_buffer
        if overflow > 0:
            del self._buffer[:overflow]
            logger.warning("%s: buffer full, dropped the %d oldest entries", self.name, overflow)

    async def _run(self) -> None:
        delay = self.interval_s
        while True:
            if delay > self.interval_s:
                await asyncio.sleep(delay)  # backing off: a full buffer does not wake it early
            else:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.interval_s)
            # shielded: `close` cancels this loop, never a write half done (its batch would be lost);
            # close's own flush waits for this one's lock and then writes what came after
            ok = await asyncio.shield(self.flush())
            delay = self.interval_s if ok else min(self.max_backoff_s, delay * 2)


class BufferedRecorder(Generic[T]):
    """Start, flush and close delegated to one `BatchFlusher` (access counts, audit records)."""

    _flusher: BatchFlusher[T]

    async def start(self) -> None:
        await self._flusher.start()

    async def flush(self) -> None:
        await self._flusher.flush()

    async def close(self) -> None:
        await self._flusher.close()
