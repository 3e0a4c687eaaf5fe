"""What the erasure guard costs the write: `SqlMemoryStore.write` of the same kind of batch with the
guard (the latest receipt of each user of the batch, read in the write's transaction, behind a
per-user advisory lock on PostgreSQL) and with it bypassed, alternating batch by batch in one run;
and the guard's statements alone, timed in a transaction of their own after every batch.

Run: .venv/bin/python bench/erasure_guard.py [--batches 40] [--batch 256] [--users-per-batch 32]
     [--receipts 20000] [--sql-url URL] [--no-analyze]

The store holds `--receipts` erasure receipts of other users, so both modes write the same rows
(that the guard drops what it must is the tests' business), analysed as autovacuum would soon do. Each batch is new turns (one memory
and one episode each, random unit vectors). Without --sql-url the store is a SQLite file in a
temporary directory; with one, a fresh database named after it with the suffix `_guard` (created
and dropped here).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from portability import TENANT, outcomes  # noqa: E402

from beliefs.write_plan import TurnOutcome  # noqa: E402
from sinks.sql import erasure_guard  # noqa: E402
from sinks.sql.engine import write_transaction  # noqa: E402
from sinks.sql.governance import user_digest  # noqa: E402
from sinks.sql.store import SqlMemoryStore  # noqa: E402
from sinks.sql.tables import erasure_receipts  # noqa: E402


def batch_of(index: int, size: int, users: int, rng: np.random.Generator) -> list[TurnOutcome]:
    """`size` new turns of `users` users (`bench/portability.py`'s turns), none of them erased."""
    return [o for user in range(users) for o in outcomes(index * users + user, size // users, rng)]


async def seed_receipts(store: SqlMemoryStore, count: int, analyze: bool) -> None:
    """`count` receipts of users no batch has."""
    erased_at = datetime.now(UTC)
    users = [f"gone-{n}" for n in range(count)]
    rows = [
        {"id": uuid.uuid4().hex, "tenant_id": TENANT, "user_digest": user_digest(TENANT, user), "key_id": None,
         "erased_at": erased_at, "counts": {}}
        for user in users
    ]  # fmt: skip
    async with write_transaction(store._engine) as conn:
        for start in range(0, len(rows), 1000):
            await conn.execute(sa.insert(erasure_receipts), rows[start : start + 1000])
    if analyze:  # what autovacuum does soon after a bulk insert; without it the digest is not in the index scan
        async with store._engine.connect() as conn:
            await conn.execute(sa.text("ANALYZE erasure_receipts"))
            await conn.commit()


async def _no_erasures(conn, users):
    return {}


async def run(args: argparse.Namespace, url: str) -> None:
    store = SqlMemoryStore(url)
    await store.setup()
    rng = np.random.default_rng(7)
    guarded = erasure_guard.latest_erasures
    seconds: dict[str, list[float]] = {"guarded": [], "bypassed": [], "guard alone": []}
    dropped = 0
    try:
        await seed_receipts(store, args.receipts, analyze=not args.no_analyze)
        for index in range(args.batches):
            mode = "guarded" if index % 4 in (0, 3) else "bypassed"  # ABBA pairs
            batch = batch_of(index, args.batch, args.users_per_batch, rng)
            erasure_guard.latest_erasures = guarded if mode == "guarded" else _no_erasures
            start = time.perf_counter()
            result = await store.write(batch)
            seconds[mode].append(time.perf_counter() - start)
            dropped += len(result.erased_job_ids)
            users = [(o.turn.tenant_id, o.turn.user_id) for o in batch]
            async with write_transaction(store._engine) as conn:  # the guard's own statements, alone
                start = time.perf_counter()
                await guarded(conn, users)
                seconds["guard alone"].append(time.perf_counter() - start)
    finally:
        erasure_guard.latest_erasures = guarded
        await store.close()
    backend = "postgresql" if url.startswith("postgresql") else "sqlite"
    print(f"backend {backend}, {args.batches} batches of {args.batch} turns ({args.users_per_batch} users each), "
          f"{args.receipts} receipts of other users; turns dropped: {dropped}")  # fmt: skip
    for mode, values in seconds.items():
        print(f"  {mode:11s} median {statistics.median(values) * 1000:8.1f} ms  "
              f"mean {statistics.fmean(values) * 1000:8.1f} ms  ({len(values)} batches)")  # fmt: skip
    ratio = statistics.median(seconds["guarded"]) / statistics.median(seconds["bypassed"])
    share = statistics.median(seconds["guard alone"]) / statistics.median(seconds["bypassed"])
    print(f"  guarded / bypassed write (medians): {ratio:.3f}; guard alone / bypassed write: {share:.4f}")


async def _pg(url: str, statement: str) -> None:
    import asyncpg

    admin = url.replace("postgresql+asyncpg://", "postgresql://", 1)
    conn = await asyncpg.connect(admin)
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", type=int, default=40)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--users-per-batch", type=int, default=32)
    parser.add_argument("--receipts", type=int, default=20000)
    parser.add_argument("--sql-url", default=None)
    parser.add_argument("--no-analyze", action="store_true", help="leave the receipts without planner statistics")
    args = parser.parse_args()
    if args.sql_url is None:
        with tempfile.TemporaryDirectory() as workdir:
            asyncio.run(run(args, f"sqlite+aiosqlite:///{Path(workdir) / 'guard.db'}"))
        return
    url = f"{args.sql_url}_guard"
    name = url.rsplit("/", 1)[1]
    asyncio.run(_pg(args.sql_url, f'CREATE DATABASE "{name}"'))
    try:
        asyncio.run(run(args, url))
    finally:
        asyncio.run(_pg(args.sql_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


if __name__ == "__main__":
    main()
