"""Mixed-load benchmark: recall clients beside a steady retain ingest, on SQLite or PostgreSQL.

Runs `beliefstream dev` as a subprocess (its own data dir; `--sql-url` for PostgreSQL), seeds
`--users` users, then for `--seconds` sends single-turn retains at `--rate` turns/s (open loop: each
on schedule, in flight on its own) while `--clients` recall clients each send `POST /v1/recall` one
after another. Reports the retains' 503 share and latency (p50, p99, max), the recalls per second
and their statuses, and the lines `dev` logged about failing writes (recall flushes, the intake
reaper, a locked database). `--checkout` runs `dev` from another checkout (a baseline of main).

    .venv/bin/python bench/mixed_load.py --clients 64 --rate 90 --seconds 60
    .venv/bin/python bench/mixed_load.py --clients 16 --rate 30 --seconds 30 --checkout /tmp/base
    .venv/bin/python bench/mixed_load.py --sql-url postgresql+asyncpg://postgres@127.0.0.1/bench
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import crashing  # noqa: E402
from bench.crashing import Dev, make_turns, outcome, sql_url_of, wait_finished  # noqa: E402
from streams.broker import free_port  # noqa: E402

QUERIES = ["what foods should I avoid?", "where do I live?", "what is my job?", "which editor do I use?",
           "what colour do I like?", "tell me about my allergies", "what do I do for work?"]
FAILING_WRITES = ("flushes failing", "flush of", "database is locked", "intake reaper", "store unavailable")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Recall clients beside a retain ingest: the retains' 503 share and p99 (docs/benchmarks.md).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--clients", type=int, default=64, help="recall clients, each one request at a time")
    parser.add_argument("--rate", type=float, default=90.0, help="retained turns per second")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--users", type=int, default=50, help="users seeded before the load, recalled during it")
    parser.add_argument("--sql-url", default=None, help="unset = SQLite under the data dir")
    parser.add_argument("--checkout", default=None, help="run dev from this checkout (e.g. a worktree of main)")
    parser.add_argument("--json", action="store_true")
    return parser.parse_args(argv)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def timed_post(http: httpx.AsyncClient, path: str, body: dict, out: list[tuple[int, float]]) -> int:
    """POST and keep (status, seconds); a connection failure counts as status 0. Answers the status."""
    started = time.monotonic()
    try:
        status = (await http.post(path, json=body)).status_code
    except httpx.HTTPError:
        status = 0
    out.append((status, time.monotonic() - started))
    return status


async def retain_at_rate(
    http: httpx.AsyncClient, turns: list[dict], rate: float, out: list[tuple[int, float]]
) -> list[str]:
    """Answers the turn ids acknowledged (202)."""
    tasks, start = [], time.monotonic()
    for i, turn in enumerate(turns):
        await asyncio.sleep(max(0.0, start + i / rate - time.monotonic()))
        tasks.append(asyncio.create_task(timed_post(http, "/v1/retain", turn, out)))
    statuses = await asyncio.gather(*tasks)
    return [turn["turn_id"] for turn, status in zip(turns, statuses, strict=True) if status == 202]


async def recall_client(http: httpx.AsyncClient, users: list[str], until: float, out: list[tuple[int, float]]) -> None:
    rng = random.Random(len(out))
    while time.monotonic() < until:
        await timed_post(http, "/v1/recall", {"user_id": rng.choice(users), "query": rng.choice(QUERIES)}, out)


async def run(args: argparse.Namespace) -> dict:
    data_dir = Path(tempfile.mkdtemp(prefix="bs-mixed-load-")) / "data"
    env = {"BELIEFSTREAM_RATE_LIMIT_PER_S": "100000", "BELIEFSTREAM_RATE_LIMIT_BURST": "100000",
           "BELIEFSTREAM_LOG_FORMAT": "console"}
    dev = Dev(data_dir, free_port(), sql_url=args.sql_url, env=env)
    dev.start()
    try:
        limits = httpx.Limits(max_connections=args.clients + 400, max_keepalive_connections=args.clients + 100)
        headers = {"Authorization": f"Bearer {dev.key}"}
        async with httpx.AsyncClient(base_url=dev.base, headers=headers, timeout=120, limits=limits) as http:
            seed = make_turns(args.users * 8, prefix="seed")  # 8 sentences per user
            for start in range(0, len(seed), 100):
                assert (await http.post("/v1/retain", json={"turns": seed[start:start + 100]})).status_code == 202
            await wait_finished(sql_url_of(dev), [t["turn_id"] for t in seed], timeout=600)
            users = sorted({t["user_id"] for t in seed})
            lines_before = len((data_dir / "dev.out").read_text(errors="replace").splitlines())
            turns = make_turns(int(args.rate * args.seconds), prefix=f"load{int(time.time())}")
            retains: list[tuple[int, float]] = []
            recalls: list[tuple[int, float]] = []
            until = time.monotonic() + args.seconds
            started = time.monotonic()
            acknowledged, *_ = await asyncio.gather(
                retain_at_rate(http, turns, args.rate, retains),
                *(recall_client(http, users, until, recalls) for _ in range(args.clients)),
            )
            elapsed = time.monotonic() - started
        await wait_finished(sql_url_of(dev), acknowledged, timeout=600)
        result = await outcome(sql_url_of(dev), acknowledged)
        lines = (data_dir / "dev.out").read_text(errors="replace").splitlines()[lines_before:]
    finally:
        dev.stop()
    retain_seconds = [s for _, s in retains]
    return {
        "clients": args.clients, "rate": args.rate, "seconds": args.seconds,
        "database": "postgresql" if args.sql_url else "sqlite", "checkout": args.checkout or "this",
        "retains": len(retains),
        "retain_503_share": round(sum(status == 503 for status, _ in retains) / max(1, len(retains)), 4),
        "retain_statuses": {str(c): sum(s == c for s, _ in retains) for c in sorted({s for s, _ in retains})},
        "retain_p50_ms": round(1000 * statistics.median(retain_seconds), 1),
        "retain_p99_ms": round(1000 * percentile(retain_seconds, 0.99), 1),
        "retain_max_ms": round(1000 * max(retain_seconds), 1),
        "recalls_per_s": round(len(recalls) / elapsed, 1),
        "recall_statuses": {str(c): sum(s == c for s, _ in recalls) for c in sorted({s for s, _ in recalls})},
        "recall_p99_ms": round(1000 * percentile([s for _, s in recalls], 0.99), 1),
        "failing_write_lines": sum(any(k in line for k in FAILING_WRITES) for line in lines),
        "lost": result.lost,
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.checkout:
        crashing.ROOT = Path(args.checkout).resolve()  # where `dev` runs from
    result = asyncio.run(run(args))
    print(f"{result['database']} ({result['checkout']}): {result['clients']} recall clients "
          f"({result['recalls_per_s']}/s, p99 {result['recall_p99_ms']} ms, {result['recall_statuses']}) beside "
          f"{result['retains']} retains at {result['rate']:g}/s: 503 share {100 * result['retain_503_share']:.1f} %, "
          f"p50 {result['retain_p50_ms']} ms, p99 {result['retain_p99_ms']} ms, max {result['retain_max_ms']} ms; "
          f"{result['failing_write_lines']} log lines of failing writes; lost {result['lost']}")
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
