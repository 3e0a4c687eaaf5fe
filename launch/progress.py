"""Progress of the ingest agent on the console: each batch is reported within `interval_s` of when it
happened, with the time the turns actually took (silence when idle).

Batches that come faster than `interval_s` share one line; a batch that arrives alone is flushed by
a timer `interval_s` later, not held until the next turn arrives. The span of a line runs from the
start of its first batch to the end of its last, so idle time before or between lines never dilutes
the rate.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Protocol

from agents.batch import BatchReport

COUNTS = ("received", "rejected", "replayed", "skipped", "failed", "inserted", "confirmed", "superseded")

class Timer(Protocol):
    """A scheduled callback that can be called off (`asyncio.TimerHandle`)."""

    def cancel(self) -> None: ...


#: Runs a callback after a delay (the event loop's `call_later` by default); None when it cannot.
Schedule = Callable[[float, Callable[[], None]], Timer | None]


def _call_later(delay: float, callback: Callable[[], None]) -> Timer | None:
    try:
        return asyncio.get_running_loop().call_later(delay, callback)
    except RuntimeError:  # no loop (a synchronous caller): the next batch or `flush` reports it
        return None


class IngestProgress:
    """Sums batch reports and hands a one-line summary to `emit` at most `interval_s` after a batch."""

    def __init__(
        self,
        emit: Callable[[str], None],
        interval_s: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        schedule: Schedule = _call_later,
    ) -> None:
        self.emit = emit
        self.interval_s = interval_s
        self._clock = clock
        self._schedule = schedule
        self._totals: BatchReport | None = None
        self._started = 0.0  # when the first batch of the pending line began
        self._ended = 0.0  # when its last batch ended
        self._timer: Timer | None = None

    def __call__(self, report: BatchReport) -> None:
        now = self._clock()
        if self._totals is None:
            self._totals = BatchReport()
            self._started = now - report.seconds
            self._timer = self._schedule(self.interval_s, self.flush)
        for name in COUNTS:
            setattr(self._totals, name, getattr(self._totals, name) + getattr(report, name))
        self._ended = now
        if now - self._started >= self.interval_s:
            self.flush()

    def flush(self) -> None:
        """Emit the pending line now, if any batch is waiting to be reported."""
        if self._totals is None:
            return
        totals, self._totals = self._totals, None
        timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
        self.emit(self.summary(totals, self._ended - self._started))

    @staticmethod
    def summary(t: BatchReport, elapsed: float) -> str:
        rate = f"{t.received / elapsed:,.0f}/s" if elapsed > 0 else "-"
        return (
            f"ingest: {t.received:,} turns in {elapsed:.1f}s ({rate}): "
            f"{t.inserted:,} new memories, {t.confirmed:,} confirmed, {t.superseded:,} superseded, "
            f"{t.skipped:,} skipped, {t.replayed:,} replayed, {t.rejected + t.failed:,} to the DLQ"
        )
