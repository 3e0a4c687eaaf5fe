"""Garbage-collector settings for the long-running processes (worker and sidecar).

Both allocate many short-lived objects per turn or recall (records, claims, rows, statements) next
to a large, permanent heap (modules, models, SQLAlchemy metadata). With CPython's defaults (a young
collection every 700 net allocations, each older collection walking that permanent heap):
- the write path spent about 1.5 s of CPU per 5,882 LoCoMo turns in `bench/ingest.py` collecting,
  ~12% of its CPU;
- recall at 1M memories had a p99 of 43–58 ms and outliers of 176–345 ms at one client, against
  27–35 ms and 36–72 ms with these settings (`bench/recall.py`, paired runs).
Here the permanent heap is frozen once after start-up, and young collections run less often.
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
