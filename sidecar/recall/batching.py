"""A buffer flushed in the background: every `interval_s`, at `max_items`, and on close.

Recall records its reads (access counts, audit) without waiting for a write: `add` only appends.
A failed flush is logged and its items go back to the front of the buffer, up to `max_buffer`
(beyond which the oldest are dropped with a warning rather than growing without bound). Closing
while the background loop writes lets that write finish, then flushes the rest.
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
    ) -> None:
        if interval_s <= 0 or max_items < 1 or max_buffer < max_items:
            raise ValueError("need interval_s > 0 and 1 <= max_items <= max_buffer")
        self.name = name
        self._flush = flush
        self.interval_s = interval_s
        self.max_items = max_items
        self.max_buffer = max_buffer
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

    async def flush(self) -> None:
        """Hand everything buffered to the flush function now."""
        async with self._lock:
            batch, self._buffer = self._buffer, []
            self._wake.clear()
            if not batch:
                return
            try:
                await self._flush(batch)
            except Exception:
                logger.exception("%s: flush of %d entries failed; kept for the next one", self.name, len(batch))
                self.add_front(batch)

    def add_front(self, items: list[T]) -> None:
        self._buffer[:0] = items
        overflow = len(self._buffer) - self.max_buffer
        if overflow > 0:
            del self._buffer[:overflow]
            logger.warning("%s: buffer full, dropped the %d oldest entries", self.name, overflow)

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.interval_s)
            # shielded: `close` cancels this loop, never a write half done (its batch would be lost);
            # close's own flush waits for this one's lock and then writes what came after
            await asyncio.shield(self.flush())


class BufferedRecorder(Generic[T]):
    """Start, flush and close delegated to one `BatchFlusher` (access counts, audit records)."""

    _flusher: BatchFlusher[T]

    async def start(self) -> None:
        await self._flusher.start()

    async def flush(self) -> None:
        await self._flusher.flush()

    async def close(self) -> None:
        await self._flusher.close()
