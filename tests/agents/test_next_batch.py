"""How the ingest agent cuts a micro-batch: full, at the window's end, or at once when nothing writes."""

from __future__ import annotations

import asyncio
import time

from agents.ingest import next_batch


async def _queue(*items: str) -> asyncio.Queue:
    queue: asyncio.Queue = asyncio.Queue()
    for item in items:
        queue.put_nowait(item)
    return queue


async def test_an_idle_writer_gets_the_turns_in_hand_without_waiting_for_the_window() -> None:
    queue = await _queue("a", "b")
    started = time.monotonic()
    assert await next_batch(queue, 256, within=5.0, writing=lambda: False) == ["a", "b"]
    assert time.monotonic() - started < 1.0


async def test_a_busy_writer_lets_the_batch_fill_through_the_window() -> None:
    queue = await _queue("a")

    async def later() -> None:
        await asyncio.sleep(0.05)
        queue.put_nowait("b")

    feeding = asyncio.create_task(later())
    assert await next_batch(queue, 256, within=0.5, writing=lambda: True) == ["a", "b"]
    await feeding


async def test_a_batch_never_exceeds_its_size() -> None:
    queue = await _queue(*"abcde")
    assert await next_batch(queue, 3, within=0.5, writing=lambda: False) == ["a", "b", "c"]
    assert await next_batch(queue, 3, within=0.01) == ["d", "e"]
