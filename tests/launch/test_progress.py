"""The dev console's ingest line tells the truth: when the turns were processed, and how fast."""

import asyncio

from agents.batch import BatchReport
from launch.progress import IngestProgress


class ManualTimers:
    """`schedule` for tests: timers fire when the test says so."""

    def __init__(self) -> None:
        self.pending: list = []

    def __call__(self, delay, callback):
        timer = _Timer(callback)
        self.pending.append((delay, timer))
        return timer

    def fire(self) -> None:
        for _, timer in self.pending:
            timer.run()
        self.pending.clear()


class _Timer:
    def __init__(self, callback) -> None:
        self.callback, self.cancelled = callback, False

    def cancel(self) -> None:
        self.cancelled = True

    def run(self) -> None:
        if not self.cancelled:
            self.callback()


def test_a_burst_is_reported_with_the_time_it_took_not_the_idle_time_before_it():
    lines: list[str] = []
    now = [100.0]  # the worker sat idle for 100 s before the backlog arrived
    timers = ManualTimers()
    progress = IngestProgress(lines.append, interval_s=2.0, clock=lambda: now[0], schedule=timers)
    for _ in range(4):  # 1,024 turns in 4 batches, 0.5 s each, back to back
        now[0] += 0.5
        progress(BatchReport(received=256, inserted=100, skipped=150, rejected=1, seconds=0.5))
    assert len(lines) == 1
    assert lines[0].startswith("ingest: 1,024 turns in 2.0s (512/s): 400 new memories")
    assert "4 to the DLQ" in lines[0]
    assert [delay for delay, timer in timers.pending if not timer.cancelled] == []


def test_a_lone_batch_is_reported_by_the_timer_not_held_until_the_next_turn():
    lines: list[str] = []
    now = [0.0]
    timers = ManualTimers()
    progress = IngestProgress(lines.append, interval_s=2.0, clock=lambda: now[0], schedule=timers)
    now[0] = 0.3
    progress(BatchReport(received=58, inserted=20, seconds=0.3))
    assert lines == []  # within the interval: it may still be joined by another batch
    assert [delay for delay, _ in timers.pending] == [2.0]
    timers.fire()  # 2 s later, no other batch came: the line goes out now
    assert lines == ["ingest: 58 turns in 0.3s (193/s): 20 new memories, 0 confirmed, 0 superseded, "
                     "0 skipped, 0 replayed, 0 to the DLQ"]
    now[0] = 95.0  # the next turn, long after
    progress(BatchReport(received=1, inserted=1, seconds=0.1))
    timers.fire()
    assert lines[1].startswith("ingest: 1 turns in 0.1s (10/s)")


def test_flush_reports_what_is_pending_and_nothing_twice():
    lines: list[str] = []
    progress = IngestProgress(lines.append, clock=lambda: 5.0, schedule=lambda delay, callback: None)
    progress.flush()
    assert lines == []
    progress(BatchReport(received=3, seconds=0.0))
    progress.flush()
    progress.flush()
    assert lines == ["ingest: 3 turns in 0.0s (-): 0 new memories, 0 confirmed, 0 superseded, 0 skipped, "
                     "0 replayed, 0 to the DLQ"]


async def test_the_event_loop_flushes_a_lone_batch():
    lines: list[str] = []
    progress = IngestProgress(lines.append, interval_s=0.05)
    progress(BatchReport(received=7, inserted=2, seconds=0.01))
    assert lines == []
    await asyncio.sleep(0.2)
    assert len(lines) == 1 and lines[0].startswith("ingest: 7 turns in ")
