"""Keyword search before and after the keyword indexes' merge, on a copy of a recall bench dataset.

Run: cp -r /tmp/r1m/recall-v7-1000000-10000-e500000 /tmp/kmerge   # the merge rewrites the file
     .venv/bin/python bench/keyword_merge.py --db /tmp/kmerge/memory.db [--queries 1000] [--pages 50]

Recall's two keyword reads (memories and episodes, through the SQL store as recall calls them, for
the bench's questions and users) are timed sequentially, then the maintenance job merges
`memories_fts` and `episodes_fts` (`agents.keyword_merge`), then the same reads are timed again.
Reported: segments before and after, the merge's steps and longest step (the longest the write path
could wait), and CPU and wall per question's pair of reads before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.keyword_merge import merge_keyword_indexes  # noqa: E402
from beliefs.records import utcnow  # noqa: E402
from bench import recall_data, recall_texts  # noqa: E402
from sidecar.recall.config import BALANCED  # noqa: E402
from sidecar.recall.keywords import query_terms  # noqa: E402
from sinks.recall import Currency, RecallScope  # noqa: E402
from sinks.sql.manage_store import MaintenanceStore  # noqa: E402
from sinks.sql.store import SqlMemoryStore  # noqa: E402


def load() -> str:
    return open("/proc/loadavg").read().split()[0] if os.path.exists("/proc/loadavg") else "?"


async def timed_reads(store: SqlMemoryStore, questions: list[tuple[RecallScope, list[str]]], passes: int) -> tuple[float, float]:
    """Mean CPU and wall ms per question's two keyword reads, over `passes` passes."""
    currency = Currency(utcnow(), BALANCED.confidence_floor)
    fetch = BALANCED.candidate_limit(10)
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(passes):
        for scope, terms in questions:
            await store.keyword_candidates(scope, currency, terms, fetch)
            await store.episode_keyword_candidates(scope, currency, terms, fetch)
    n = passes * len(questions)
    return (time.process_time() - cpu) / n * 1000, (time.perf_counter() - wall) / n * 1000


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True, help="a recall bench dataset's memory.db (a copy: it is rewritten)")
    parser.add_argument("--users", type=int, default=10_000, help="the dataset's user count")
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--passes", type=int, default=3, help="timed passes over the questions, before and after")
    parser.add_argument("--pages", type=int, default=50, help="pages merged per step")
    args = parser.parse_args()
    if not args.db.is_file():
        sys.exit(f"error: no database at {args.db}")
    rng = random.Random(7)
    users = recall_data.user_ids(args.users)
    questions = []
    for text in recall_texts.questions(rng, args.queries):
        tenant, user = rng.choice(users)
        questions.append((RecallScope(tenant, user), query_terms(text)))
    store = SqlMemoryStore(f"sqlite+aiosqlite:///{args.db}")
    await store.setup()
    maintenance = MaintenanceStore.of(store)
    try:
        print(f"load {load()}; segments {[await maintenance.keyword_segments(i) for i in maintenance.keyword_indexes()]}")
        await timed_reads(store, questions, 1)  # warm the page cache
        before = await timed_reads(store, questions, args.passes)
        print(f"before: {before[0]:.3f} ms CPU, {before[1]:.3f} ms wall per question (two keyword reads)")
        for report in await merge_keyword_indexes(maintenance, args.pages):
            print(
                f"merged {report.index}: segments {report.segments_before} -> {report.segments_after}, "
                f"{report.steps} steps, {report.seconds:.2f} s, longest step {report.longest_step_s * 1000:.0f} ms"
            )
        await timed_reads(store, questions, 1)
        after = await timed_reads(store, questions, args.passes)
        print(f"after:  {after[0]:.3f} ms CPU, {after[1]:.3f} ms wall per question (two keyword reads)")
        print(f"after / before: CPU {after[0] / before[0]:.2f}, wall {after[1] / before[1]:.2f}; load {load()}")
    finally:
        await store.close()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit("interrupted")
