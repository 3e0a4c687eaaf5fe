"""Benchmark of the decay job: N active memories scored, first run (every score new) and an hour later.

Run: .venv/bin/python bench/decay.py [--rows 1000000] [--batch 5000] [--sql-url URL] [--vectors]
Rows are bulk-inserted straight into `memories` (no embeddings; 1 in 50 volatile and expired,
ages up to two years, access counts 0-12). Without --sql-url the database is a SQLite file in a
temporary directory. --vectors mirrors payloads into an embedded Edge index (points are not
written, so payload updates find nothing: this measures the job's side of the calls only).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.decay_job import run_decay  # noqa: E402
from agents.projector import VectorProjector  # noqa: E402
from sinks.sql.engine import write_transaction  # noqa: E402
from sinks.sql.maintenance import MaintenanceStore  # noqa: E402
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
        finally:
            if vectors is not None:
                await vectors.close()
            await store.close()
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=5000)
    parser.add_argument("--sql-url", default=None, help="default: a SQLite file in a temporary directory")
    parser.add_argument("--vectors", action="store_true")
    asyncio.run(main(parser.parse_args()))
