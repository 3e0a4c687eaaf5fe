"""Benchmark of the decay job: N active memories scored, first run (every score new) and an hour later.

Run: .venv/bin/python bench/decay.py [--rows 1000000] [--batch 5000] [--sql-url URL] [--vectors]
                                     [--workers 2 --partitions 4]
Rows are bulk-inserted straight into `memories` (no embeddings; 1 in 50 volatile and expired,
ages up to two years, access counts 0-12). Without --sql-url the database is a SQLite file in a
temporary directory. --vectors mirrors payloads into an embedded Edge index (points are not
written, so payload updates find nothing: this measures the job's side of the calls only).
--workers N then runs the worker's sweep (`agents.user_maintenance.sweep`) two hours later in N processes
at once, each keeping the users of its share of --partitions (as the consumer group would assign
them), and reports rows/s per worker and in all.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.decay_job import run_decay  # noqa: E402
from agents.ownership import owned_users  # noqa: E402
from agents.projector import VectorProjector  # noqa: E402
from agents.user_maintenance import Maintenance, sweep  # noqa: E402
from sinks.sql.engine import write_transaction  # noqa: E402
from sinks.sql.manage_store import MaintenanceStore  # noqa: E402
from sinks.sql.store import SqlMemoryStore  # noqa: E402
from sinks.sql.tables import memories  # noqa: E402
from sinks.sql.vector_outbox import SqlVectorOutbox  # noqa: E402

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
SEED_CHUNK = 20_000


def rows(start: int, count: int, rng: np.random.Generator) -> list[dict]:
    ages = rng.uniform(0, 730, count)
    accesses = rng.integers(0, 13, count)
    out = []
    for i in range(count):
        n = start + i
        created = NOW - timedelta(days=float(ages[i]))
        out.append(
            {
                "id": f"m{n:09d}",
                "tenant_id": f"t{n % 10}",
                "user_id": f"u{n % 5000}",
                "agent_id": None,
                "visibility": "user",
                "text": f"The user fact number {n}.",
                "type": "fact",
                "topic": "work",
                "importance": 0.5,
                "confidence": 0.9,
                "recall_semantics": "default",
                "profile": False,
                "source_role": "user",
                "source_turn_ids": [f"t{n}"],
                "evidence": "",
                "trust": "trusted",
                "state": "active",
                "created_at": created,
                "valid_from": created,
                "expires_at": NOW - timedelta(hours=1) if n % 50 == 0 else None,
                "last_accessed": created + timedelta(days=float(ages[i]) / 2) if accesses[i] else None,
                "access_count": int(accesses[i]),
                "vector_dirty": False,
                "vector_version": 1,
                "text_norm_hash": f"{n:064d}",
            }
        )
    return out


async def seed(store: SqlMemoryStore, count: int) -> float:
    rng = np.random.default_rng(42)
    started = time.perf_counter()
    for start in range(0, count, SEED_CHUNK):
        batch = rows(start, min(SEED_CHUNK, count - start), rng)
        async with write_transaction(store._engine) as conn:
            await conn.execute(memories.insert(), batch)
    return time.perf_counter() - started


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        url = args.sql_url or f"sqlite+aiosqlite:///{tmp}/bench.db"
        store = SqlMemoryStore(url)
        await store.setup()
        vectors = None
        if args.vectors:
            from sinks.vectors.edge import EdgeVectorIndex

            vectors = EdgeVectorIndex(Path(tmp) / "vectors")
            await vectors.setup()
        try:
            seeded = await seed(store, args.rows)
            print(f"seeded {args.rows:,} rows in {seeded:.1f} s ({url.split(':')[0]})")
            maintenance = MaintenanceStore.of(store)
            projector = VectorProjector(SqlVectorOutbox.of(store), vectors) if vectors is not None else None
            for label, now in (
                ("first run", NOW),
                ("same instant", NOW),
                ("an hour later", NOW + timedelta(hours=1)),
            ):
                report = await run_decay(maintenance, projector, now, batch_size=args.batch)
                if projector is not None:
                    await projector.drain()  # the payloads the run owed the index
                print(
                    f"{label:>14}: {report.rows:,} rows in {report.seconds:.1f} s = {report.rows_per_s:,.0f} rows/s; "
                    f"{report.updated:,} scores, {report.expired:,} expired, {report.payloads:,} payloads"
                )
            if args.workers:
                await split_sweep(url, args.workers, args.partitions, args.batch)
                report = await run_decay(maintenance, projector, NOW + timedelta(hours=3), batch_size=args.batch)
                print(
                    f"{'one process':>14}: {report.rows:,} rows in {report.seconds:.1f} s = "
                    f"{report.rows_per_s:,.0f} rows/s (the whole-table job an hour after the sweep, for comparison)"
                )
        finally:
            if vectors is not None:
                await vectors.close()
            await store.close()
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")


def assignment(workers: int, partitions: int) -> list[set[int]]:
    """Partitions dealt round-robin, as a range assignor gives them to one group's members."""
    return [set(range(worker, partitions, workers)) for worker in range(workers)]


def _sweep_process(url: str, assigned: set[int], partitions: int, batch: int, now: datetime) -> tuple:
    async def run() -> tuple:
        store = SqlMemoryStore(url)
        await store.setup()
        try:
            maintenance = Maintenance(MaintenanceStore.of(store), None, None, batch_size=batch)
            report = await sweep(maintenance, lambda users: owned_users(users, assigned, partitions), now=now)
            return sorted(assigned), report.users, report.rows, report.seconds
        finally:
            await store.close()

    return asyncio.run(run())


async def split_sweep(url: str, workers: int, partitions: int, batch: int) -> None:
    """The sweep of `workers` processes at once, each over its partitions' users."""
    now = NOW + timedelta(hours=2)
    context = multiprocessing.get_context("spawn")
    started = time.perf_counter()
    with context.Pool(workers) as pool:
        results = pool.starmap(
            _sweep_process, [(url, assigned, partitions, batch, now) for assigned in assignment(workers, partitions)]
        )
    wall = time.perf_counter() - started
    for assigned, users, rows_done, seconds in results:
        print(
            f"{'worker ' + str(assigned):>14}: {users:,} users, {rows_done:,} rows in {seconds:.1f} s = "
            f"{rows_done / seconds:,.0f} rows/s"
        )
    total = sum(r[2] for r in results)
    print(f"{'all workers':>14}: {total:,} rows in {wall:.1f} s wall (process start included) = {total / wall:,.0f} rows/s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=5000)
    parser.add_argument("--sql-url", default=None, help="default: a SQLite file in a temporary directory")
    parser.add_argument("--vectors", action="store_true")
    parser.add_argument("--workers", type=int, default=0, help="then sweep in this many processes split by partition")
    parser.add_argument("--partitions", type=int, default=4, help="partitions the users are split by")
    asyncio.run(main(parser.parse_args()))
