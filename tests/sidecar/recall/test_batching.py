"""The background buffer behind access counts and audit: size and time triggers, close flushes, failures kept."""

from __future__ import annotations

import asyncio

import pytest

from sidecar.recall.batching import BatchFlusher


class Sink:
    def __init__(self, failures: int = 0) -> None:
        self.batches: list[list[int]] = []
        self.failures = failures

    async def __call__(self, batch: list[int]) -> None:
        if self.failures:
            self.failures -= 1
            raise RuntimeError("store down")
        self.batches.append(batch)


async def test_close_flushes_what_is_left() -> None:
    sink = Sink()
    flusher = BatchFlusher("t", sink, interval_s=60)
    await flusher.start()
    flusher.add([1, 2])
    await flusher.close()
    assert sink.batches == [[1, 2]]


async def test_a_full_batch_flushes_before_the_interval() -> None:
    sink = Sink()
    flusher = BatchFlusher("t", sink, interval_s=60, max_items=3)
    await flusher.start()
    flusher.add([1, 2, 3])
    for _ in range(50):
        await asyncio.sleep(0.01)
        if sink.batches:
            break
    await flusher.close()
    assert sink.batches == [[1, 2, 3]]


async def test_the_interval_flushes_a_partial_batch() -> None:
    sink = Sink()
    flusher = BatchFlusher("t", sink, interval_s=0.02)
    await flusher.start()
    flusher.add([7])
    await asyncio.sleep(0.1)
    assert sink.batches == [[7]]
    await flusher.close()


async def test_a_failed_flush_keeps_its_items_and_the_buffer_is_bounded(caplog) -> None:
    sink = Sink(failures=1)
    flusher = BatchFlusher("t", sink, interval_s=60, max_items=2, max_buffer=4)
    flusher.add([1, 2])
    await flusher.flush()
    assert flusher.pending == 2 and sink.batches == []
    flusher.add([3, 4, 5])
    assert flusher.pending == 4  # the oldest went
    await flusher.flush()
    assert sink.batches == [[2, 3], [4, 5]]  # one short transaction per `max_items`, never one huge one


async def test_failing_flushes_back_off_and_say_so_once_per_change(caplog) -> None:
    """A store that refuses for a while (issue 25: SQLite busy under recall load) is retried at
    doubling intervals, not every tick, with one line when it starts failing and one when it recovers."""
    sink = Sink(failures=4)
    flusher = BatchFlusher("t", sink, interval_s=0.01, max_items=10, max_backoff_s=0.08)
    flusher.add(list(range(25)))
    await flusher.start()
    loop = asyncio.get_running_loop()
    started = loop.time()
    while flusher.pending:
        await asyncio.sleep(0.005)
        assert loop.time() - started < 5
    elapsed = loop.time() - started
    await flusher.close()
    assert sink.batches == [list(range(10)), list(range(10, 20)), list(range(20, 25))]
    assert elapsed >= 0.02 + 0.04 + 0.08  # waits of 2, 4, 8 intervals (capped) after the failures
    lines = [r.getMessage() for r in caplog.records if r.name == "sidecar.recall.batching"]
    assert len(lines) == 2 and "failing" in lines[0] and "again" in lines[1]


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError):
        BatchFlusher("t", Sink(), interval_s=0)


class SlowSink(Sink):
    """A write that takes a while and is not undone by being interrupted half way (as a transaction
    that has started committing): a batch counts once its write has finished."""

    def __init__(self) -> None:
        super().__init__()
        self.writing = asyncio.Event()

    async def __call__(self, batch: list[int]) -> None:
        self.writing.set()
        await asyncio.sleep(0.05)
        self.batches.append(batch)


async def test_close_during_a_background_flush_lets_that_write_finish_and_loses_nothing() -> None:
    sink = SlowSink()
    flusher = BatchFlusher("t", sink, interval_s=60, max_items=2)
    await flusher.start()
    flusher.add([1, 2])  # a full batch: the background loop starts writing it
    await asyncio.wait_for(sink.writing.wait(), 1)
    flusher.add([3])
    await asyncio.wait_for(flusher.close(), 2)
    assert sink.batches == [[1, 2], [3]]
    assert flusher.pending == 0
