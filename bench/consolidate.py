"""Benchmark of consolidation: one user's N memories in one topic, dry run then apply.

Run: .venv/bin/python bench/consolidate.py [--memories 10000] [--threshold 0.85] [--sql-url URL]
Texts are generated from templates (verb × thing × setting), and 5% are paraphrases of an
earlier memory ("mentioned that they ...", "The user ..."), so some groups are true duplicates and
some are template neighbours. Embeddings are computed and stored before the clock starts (the
write path stores them); the canonical texts are embedded inside the timed apply.
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

from agents.consolidate import Consolidator  # noqa: E402
from beliefs.records import Memory  # noqa: E402
from embedding.embedder import load_default_embedder  # noqa: E402
from sinks.sql import queries  # noqa: E402
from sinks.sql.engine import write_transaction  # noqa: E402
from sinks.sql.manage_store import MaintenanceStore  # noqa: E402
from sinks.sql.store import SqlMemoryStore  # noqa: E402

T0 = datetime(2026, 1, 1, tzinfo=UTC)
VERBS = [
    "likes",
    "uses",
    "prefers",
    "is learning",
    "dislikes",
    "owns",
    "recommends",
    "avoids",
    "wants to try",
    "teaches",
]
THINGS = (
    "Python Rust Go TypeScript Haskell Kotlin Swift Elixir Clojure Zig vim emacs VS Code PyCharm Neovim "
    "tea coffee matcha espresso kombucha sushi ramen tacos pho dumplings chess go poker bridge sudoku "
    "jazz techno opera punk folk cycling running climbing rowing yoga Postgres SQLite Redis Kafka Docker "
    "Kubernetes Terraform Ansible Linux FreeBSD macOS Windows Berlin Lisbon Tokyo Oslo Lima dark mode "
    "light mode tabs spaces pytest unittest hypothesis mypy ruff black notebooks spreadsheets"
).split()
SETTINGS = [
    "at work",
    "at home",
    "on weekends",
    "for side projects",
    "in the morning",
    "while travelling",
    "with the team",
    "for teaching",
    "in production",
    "for prototypes",
    "on Fridays",
    "for reviews",
]


def texts(count: int, rng: np.random.Generator) -> list[str]:
    out: list[str] = []
    while len(out) < count:
        if out and rng.random() < 0.05:
            source = out[int(rng.integers(len(out)))]
            body = source.removeprefix("User ").rstrip(".")
            out.append(f"User mentioned that they {body}." if rng.random() < 0.5 else f"The user {body}.")
            continue
        verb, thing = VERBS[int(rng.integers(len(VERBS)))], THINGS[int(rng.integers(len(THINGS)))]
        out.append(f"User {verb} {thing} {SETTINGS[int(rng.integers(len(SETTINGS)))]}.")
    return out


async def seed(store: SqlMemoryStore, count: int) -> None:
    rng = np.random.default_rng(7)
    corpus = texts(count, rng)
    started = time.perf_counter()
    embeddings = load_default_embedder().embed(corpus)
    print(f"embedded {count:,} texts in {time.perf_counter() - started:.1f} s (not part of the timing)")
    items = []
    for i, text in enumerate(corpus):
        at = T0 + timedelta(minutes=i)
        memory = Memory(
            id=f"m{i:06d}",
            tenant_id="acme",
            user_id="u1",
            text=text,
            type="preference",
            topic="tech",
            importance=float(rng.uniform(0.3, 0.9)),
            confidence=0.9,
            source_turn_ids=[f"t{i}"],
            created_at=at,
            valid_from=at,
        )
        items.append((memory, embeddings[i]))
    async with write_transaction(store._engine) as conn:
        await queries.insert_memories(conn, items)


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        url = args.sql_url or f"sqlite+aiosqlite:///{tmp}/bench.db"
        store = SqlMemoryStore(url)
        await store.setup()
        try:
            await seed(store, args.memories)
            consolidator = Consolidator(MaintenanceStore.of(store), None, load_default_embedder())
            first_apply = None
            for dry_run in (True, False, False):
                started = time.perf_counter()
                diff = await consolidator(
                    "acme", "tech", user_id="u1", threshold=args.threshold, dry_run=dry_run
                )
                seconds = time.perf_counter() - started
                merged = sum(len(g.member_ids) for g in diff.groups)
                label = "dry run" if dry_run else "apply"
                print(
                    f"{label:>8}: {diff.scanned:,} memories in {seconds:.2f} s; {len(diff.groups):,} groups of "
                    f"{merged:,} memories; {len(diff.applied_groups):,} written"
                )
                first_apply = diff if not dry_run and first_apply is None else first_apply
            if args.show:  # a few of what the first apply merged
                for group in first_apply.groups[:5]:
                    print("  e.g.", [m.text for m in group.members], "->", group.canonical_text)
        finally:
            await store.close()
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--threshold", type=float, default=0.85)
    parser.add_argument("--sql-url", default=None)
    parser.add_argument("--show", action="store_true")
    asyncio.run(main(parser.parse_args()))
