"""Micro benchmark of the embedded Edge index: upsert rate and scoped search latency at N points.

Run: .venv/bin/python bench/vectors.py [--points 50000] [--users 1000] [--queries 300]
Points are random unit vectors spread over 10 tenants and --users users; searches carry the
full recall scope (tenant, user, active state, agent visibility), before and after `optimize()`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sinks.base import VectorFilter, VectorPoint  # noqa: E402
from sinks.vectors.edge import EdgeVectorIndex  # noqa: E402

DIM = 384


def points(n: int, users: int, rng: np.random.Generator) -> list[VectorPoint]:
    vectors = rng.standard_normal((n, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    out = []
    for i in range(n):
        user = i % users
        out.append(
            VectorPoint(
                str(uuid.uuid4()),
                vectors[i].tolist(),
                {
                    "tenant_id": f"t{user % 10}",
                    "user_id": f"u{user}",
                    "agent_id": "bot" if i % 5 == 0 else "",
                    "visibility": "agent" if i % 5 == 0 else "user",
                    "state": "superseded" if i % 7 == 0 else "active",
                    "type": ("preference", "fact", "decision", "procedure")[i % 4],
                    "topic": ("tech", "work", "personal", "health")[i % 3],
                },
            )
        )
    return out


async def latencies(
    index: EdgeVectorIndex, users: int, queries: int, rng: np.random.Generator
) -> list[float]:
    out = []
    for q in range(queries):
        user = int(rng.integers(users))
        scope = VectorFilter(
            tenant_id=f"t{user % 10}", user_id=f"u{user}", agent_ids=("bot",) if q % 2 else ()
        )
        vector = rng.standard_normal(DIM)
        started = time.perf_counter()
        await index.search((vector / np.linalg.norm(vector)).tolist(), scope, limit=20)
        out.append((time.perf_counter() - started) * 1000)
    return out


def summary(name: str, ms: list[float]) -> str:
    ms = sorted(ms)
    p95 = ms[int(len(ms) * 0.95) - 1]
    return f"{name:<28} p50 {statistics.median(ms):6.2f} ms   p95 {p95:6.2f} ms"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=50_000)
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--batch", type=int, default=256)
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    batch = points(args.points, args.users, rng)
    with tempfile.TemporaryDirectory() as tmp:
        index = EdgeVectorIndex(Path(tmp) / "vectors")
        await index.setup()
        started = time.perf_counter()
        for i in range(0, len(batch), args.batch):
            await index.write(batch[i : i + args.batch])
        elapsed = time.perf_counter() - started
        print(
            f"upsert {args.points} points in batches of {args.batch}: {args.points / elapsed:,.0f} points/s"
        )
        print(summary("scoped search, unoptimized", await latencies(index, args.users, args.queries, rng)))
        started = time.perf_counter()
        await index.optimize()
        print(f"optimize(): {time.perf_counter() - started:.1f} s")
        print(summary("scoped search, optimized", await latencies(index, args.users, args.queries, rng)))
        started = time.perf_counter()
        await index.close()
        print(f"close() (flush): {time.perf_counter() - started:.2f} s")


if __name__ == "__main__":
    asyncio.run(main())
