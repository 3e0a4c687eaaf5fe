"""Garbage-collector settings for the long-running processes (worker and sidecar).

Both allocate many short-lived objects per turn or recall (records, claims, rows, statements) next
to a large, permanent heap (modules, models, SQLAlchemy metadata). With CPython's defaults young
collections run often and each older one walks that permanent heap, which cost the write path CPU
and recall its latency tail (`docs/benchmarks.md`, "Ingest" and "Recall latency and throughput"; their history in git). Here the
permanent heap is frozen once after start-up, and young collections run less often.
"""

from __future__ import annotations

import gc

#: Net allocations between young collections (CPython's default is 700).
YOUNG_THRESHOLD = 10_000


def tune_for_throughput() -> None:
    """Freeze what start-up allocated (never collected again) and collect the young less often."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)
