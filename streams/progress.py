"""Progress of the ingest agent, as a line every few seconds while turns flow (and silence when idle)."""

from __future__ import annotations

import time
from collections.abc import Callable

from agents.pipeline import BatchReport


class IngestProgress:
    """Sums batch reports and hands a one-line summary to `emit` at most every `interval_s`."""

    def __init__(self, emit: Callable[[str], None], interval_s: float = 10.0) -> None:
        self.emit = emit
        self.interval_s = interval_s
        self._since = time.monotonic()
        self._totals = BatchReport()

    def __call__(self, report: BatchReport) -> None:
        totals = self._totals
        for field in ("received", "rejected", "replayed", "skipped", "failed", "inserted", "confirmed", "superseded"):
            setattr(totals, field, getattr(totals, field) + getattr(report, field))
        elapsed = time.monotonic() - self._since
        if elapsed >= self.interval_s:
            self.emit(self.summary(elapsed))
            self._since = time.monotonic()
            self._totals = BatchReport()

    def summary(self, elapsed: float) -> str:
        t = self._totals
        return (
            f"ingest: {t.received:,} turns in {elapsed:.0f}s ({t.received / elapsed:,.0f}/s): "
            f"{t.inserted:,} new memories, {t.confirmed:,} confirmed, {t.superseded:,} superseded, "
            f"{t.skipped:,} skipped, {t.replayed:,} replayed, {t.rejected + t.failed:,} to the DLQ"
        )
