"""Benchmark of export, import and reindex: a store of U users, each with M memories and M episodes.

Run: .venv/bin/python bench/portability.py [--users 200] [--per-user 25] [--sql-url URL]

The source is written through `SqlMemoryStore.write` (one turn per memory and episode; some
slots are stated twice, so superseded history travels too), with random unit vectors. Then: the
export (lines/s), the import into an empty store with the real model (rows/s, and the share of it
spent embedding), a second import (nothing to do), a rebuild of an embedded Edge index from SQL, a
clean verify (once timed, once under `tracemalloc` for what it holds per point and per page row),
and a verify that heals 1 % of points deleted, 1 % made stale and 1 % extra. Each step prints its
wall time and the process's CPU time (steadier on a loaded machine). Without --sql-url both stores
are SQLite files in a temporary directory; with one, the target is a second database
named after it with the suffix `_copy` (created and dropped here).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
import tracemalloc
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.portability import import_records, read_records  # noqa: E402
from beliefs.records import JobState, Memory, Role, Turn, job_id_for, memory_id_for  # noqa: E402
from beliefs.write_plan import TurnOutcome  # noqa: E402
from embedding.embedder import load_default_embedder  # noqa: E402
from reading.episode_keeping import episode_of  # noqa: E402
from sinks.base import VectorPoint  # noqa: E402
from sinks.portability import export  # noqa: E402
from sinks.reach import EVERY_AGENT  # noqa: E402
from sinks.reindex import PAGE, rebuild, verify  # noqa: E402
from sinks.sql.store import SqlMemoryStore  # noqa: E402
from sinks.vectors.edge import EdgeVectorIndex  # noqa: E402

T0 = datetime(2026, 1, 1, tzinfo=UTC)
TENANT = "bench"


class TimedEmbedder:
    """The real model, timing its calls (import's embedding share)."""

    def __init__(self) -> None:
        self.model = load_default_embedder()
        self.seconds = 0.0

    async def aembed(self, texts):
        start = time.perf_counter()
        try:
            return await self.model.aembed(texts)
        finally:
            self.seconds += time.perf_counter() - start


def outcomes(user: int, per_user: int, rng: np.random.Generator) -> list[TurnOutcome]:
    """One turn per memory; an even turn restates an earlier slot (and supersedes its value)."""
    found = []
    for n in range(per_user):
        slot, value = n // 2 if n % 2 == 0 else n, f"value {n}"
        turn = Turn(turn_id=f"u{user}-t{n}", tenant_id=TENANT, user_id=f"u{user}", role=Role.USER,
                    text=f"My setting {slot} is {value}.", ts=T0 + timedelta(minutes=n), session_id=f"s{n % 5}")  # fmt: skip
        memory = Memory(
            id=memory_id_for(TENANT, turn.turn_id, "0"), tenant_id=TENANT, user_id=turn.user_id,
            text=f"User's setting {slot} is {value}.", type="preference", topic="tech", importance=0.6,
            confidence=0.9, entity="user", attribute=f"setting_{slot}", value=value,
            source_turn_ids=[turn.turn_id], evidence=turn.text, created_at=turn.ts, valid_from=turn.ts,
        )  # fmt: skip
        vectors = rng.standard_normal((2, 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        episode = episode_of(turn, turn.text, None, turn.ts, 0.0)
        found.append(TurnOutcome(turn, job_id_for(TENANT, turn.turn_id), JobState.DONE, None, [memory],
                                 [vectors[0].tolist()], episode, vectors[1].tolist()))  # fmt: skip
    return found


async def lines_of(store: SqlMemoryStore) -> list[str]:
    return [line async for line in export(store, EVERY_AGENT, TENANT)]


async def run(args: argparse.Namespace, workdir: Path) -> None:
    source_url = args.sql_url or f"sqlite+aiosqlite:///{workdir / 'source.db'}"
    target_url = f"{args.sql_url}_copy" if args.sql_url else f"sqlite+aiosqlite:///{workdir / 'target.db'}"
    if args.sql_url:
        await _pg(args.sql_url, f'CREATE DATABASE "{target_url.rsplit("/", 1)[1]}"')
    source, target = SqlMemoryStore(source_url), SqlMemoryStore(target_url)
    await source.setup()
    await target.setup()
    rng = np.random.default_rng(7)
    try:
        for user in range(args.users):
            await source.write(outcomes(user, args.per_user, rng))
        start, cpu = time.perf_counter(), time.process_time()
        lines = await lines_of(source)
        exported = time.perf_counter() - start
        report("export", len(lines) - 1, exported, "lines", f"cpu {time.process_time() - cpu:.2f} s")

        embedder = TimedEmbedder()
        start = time.perf_counter()
        counts = await import_records(read_records(lines), target, embedder)
        imported = time.perf_counter() - start
        report("import (real model)", counts.memories + counts.episodes, imported, "rows",
               f"embedding {embedder.seconds / imported:.0%} of it")  # fmt: skip
        start = time.perf_counter()
        again = await import_records(read_records(lines), target, embedder)
        report("import again", again.skipped, time.perf_counter() - start, "rows skipped")
        assert await lines_of(target) == lines, "the round trip changed a line"

        index = EdgeVectorIndex(workdir / "vectors")
        await index.setup()
        try:
            await timed_index("reindex (rebuild)", rebuild(target, index))
            await timed_index("reindex --verify (clean)", verify(target, index))
            await traced_verify(target, index)
            await damage(target, index, rng)
            await timed_index("reindex --verify (3 % damaged, healed)", verify(target, index))
        finally:
            await index.close()
    finally:
        await source.close()
        await target.close()
        if args.sql_url:
            await _pg(args.sql_url, f'DROP DATABASE IF EXISTS "{target_url.rsplit("/", 1)[1]}" WITH (FORCE)')


async def timed_index(label: str, work) -> None:
    start, cpu = time.perf_counter(), time.process_time()
    result = await work
    seconds = time.perf_counter() - start
    report(label, result.expected, seconds, "points",
           f"cpu {time.process_time() - cpu:.2f} s; {len(result.missing)} missing, {len(result.extra)} extra, "
           f"{len(result.stale)} stale, {len(result.stale_vector)} stale_vector")  # fmt: skip


async def traced_verify(store: SqlMemoryStore, index: EdgeVectorIndex) -> None:
    """What a clean verification itself holds at its peak (Python allocations only: the embedded
    index's own memory is not counted), at two page sizes, split into what it holds per expected
    point and per row of a page (the page's vectors, stored and SQL's); tracing slows it down."""
    peaks: dict[int, int] = {}
    for page in (PAGE, PAGE // 10):
        tracemalloc.start()
        try:
            result = await verify(store, index, page=page)
            peaks[page] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    per_row = (peaks[PAGE] - peaks[PAGE // 10]) / (PAGE - PAGE // 10)
    per_point = (peaks[PAGE // 10] - per_row * (PAGE // 10)) / max(1, result.expected)
    print(f"{'reindex --verify (clean, traced)':42s} {result.expected:>8,} {'points':13s} peak "
          f"{peaks[PAGE] / 2**20:.1f} MiB at a page of {PAGE}, {peaks[PAGE // 10] / 2**20:.1f} MiB at {PAGE // 10}: "
          f"{per_point:,.0f} bytes a point, {per_row:,.0f} a page row", flush=True)  # fmt: skip


async def damage(store: SqlMemoryStore, index: EdgeVectorIndex, rng: np.random.Generator) -> None:
    points = [p async for p in _all_points(store)]
    k = max(1, len(points) // 100)
    chosen = rng.choice(len(points), size=2 * k, replace=False)
    await index.delete([points[i].id for i in chosen[:k]])
    await index.set_payload({points[i].id: {"state": "revoked"} for i in chosen[k:]})
    extra = [VectorPoint(str(uuid.uuid4()), points[0].vector, {"tenant_id": TENANT, "kind": "memory"}) for _ in range(k)]
    await index.write(extra)


async def _all_points(store: SqlMemoryStore):
    for kind in ("memory", "episode"):
        for point in await store.vector_points(kind, None, 10**9):
            yield point


def report(label: str, count: int, seconds: float, unit: str, note: str = "") -> None:
    rate = count / seconds if seconds else float("inf")
    print(f"{label:42s} {count:>8,} {unit:13s} {seconds:8.2f} s {rate:>10,.0f}/s  {note}", flush=True)


async def _pg(url: str, statement: str) -> None:
    import asyncpg

    dsn = url.replace("postgresql+asyncpg://", "postgresql://").rsplit("/", 1)[0] + "/postgres"
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--per-user", type=int, default=25, help="memories (and episodes) per user")
    parser.add_argument("--sql-url", help="the source database (PostgreSQL); default: SQLite files")
    args = parser.parse_args()
    print(f"{args.users} users x {args.per_user} memories and episodes; load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as workdir:
        asyncio.run(run(args, Path(workdir)))


if __name__ == "__main__":
    main()
