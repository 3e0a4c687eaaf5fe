"""Ingest benchmark: LoCoMo turns through the real broker and the whole write path.

Reports, from one run on one machine: end-to-end turns/s with the backlog published at once (the
capacity); the **CPU ratio** = CPU to embed each raw turn once (the same model, alone, at its best
batch size) ÷ the pipeline's CPU for the same turns (the worker's process and its model processes,
not the broker): how close a turn's cost is to the embedding floor; and **freshness**: from the
publish call until a recall can find the turn (its SQL committed and its vector point projected),
p50 / p99, paced at 50 % and 90 % of the capacity measured in the same run.

    .venv/bin/python bench/ingest.py [--turns N] [--latency-turns N] [--sql-url URL] [--locomo PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
import uuid
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa
from aiokafka import AIOKafkaProducer
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from locomo import DEFAULT_PATH, locomo_turns  # noqa: E402

from embedding.embedder import OnnxMiniLmEmbedder  # noqa: E402
from launch.runtime import open_clients, run_worker  # noqa: E402
from sinks.sql.tables import episodes, memories  # noqa: E402
from streams.broker import EmbeddedBroker  # noqa: E402
from streams.publish import publish_records  # noqa: E402
from streams.settings import Settings  # noqa: E402


def process_cpu_seconds(skip_pids: set[int]) -> float:
    """CPU seconds of this process and its live children (the worker's model process), without
    `skip_pids` (the broker, which stands in for Kafka). Linux /proc; 0 for a child it cannot read."""
    tick = os.sysconf("SC_CLK_TCK")
    total = time.process_time()
    me = os.getpid()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(stat.parent.name)
        if int(fields[1]) == me and pid not in skip_pids:  # fields[1] is the parent pid
            total += (int(fields[11]) + int(fields[12])) / tick  # utime + stime
    return total


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def as_epoch(value: datetime | str) -> float:
    """SQL timestamps are UTC; SQLite hands them back naive (and as text through raw SQL)."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return (value if value.tzinfo else value.replace(tzinfo=UTC)).timestamp()


def as_datetime(value: datetime | str) -> datetime:
    """An aware UTC datetime from what SQL hands back (see `as_epoch`)."""
    return datetime.fromtimestamp(as_epoch(value), UTC)


class Ledger:
    """Read-only SQL views the benchmark needs (job completion, commit times, memory texts by batch)."""

    def __init__(self, url: str) -> None:
        self.engine = create_async_engine(url)

    async def counts(self, tenant: str) -> dict[str, int]:
        """Memories and episodes written for `tenant`."""
        async with self.engine.connect() as conn:
            out = {}
            for name, table in (("memories", memories), ("episodes", episodes)):
                query = sa.select(sa.func.count()).select_from(table).where(table.c.tenant_id == tenant)
                out[name] = int((await conn.execute(query)).scalar_one())
            return out

    async def finished(self, tenant: str) -> int:
        async with self.engine.connect() as conn:
            query = text("SELECT count(*) FROM jobs WHERE tenant_id = :t AND state != 'queued'")
            return int((await conn.execute(query, {"t": tenant})).scalar_one())

    async def commit_times(self, tenant: str) -> dict[str, float]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(text("SELECT turn_id, updated_at FROM jobs WHERE tenant_id = :t"), {"t": tenant})
            return {turn_id: as_epoch(updated) for turn_id, updated in rows}

    async def findable(self, tenant: str) -> set[str]:
        """Turn ids whose episode is committed and projected (no vector point owed): recall finds them."""
        query = sa.select(episodes.c.turn_id).where(episodes.c.tenant_id == tenant, episodes.c.vector_dirty == sa.false())
        async with self.engine.connect() as conn:
            return set((await conn.scalars(query)).all())

    async def kept_turns(self, tenant: str) -> set[str]:
        async with self.engine.connect() as conn:
            return set((await conn.scalars(sa.select(episodes.c.turn_id).where(episodes.c.tenant_id == tenant))).all())

    async def close(self) -> None:
        await self.engine.dispose()


def embedding_floor(texts: list[str], batch_sizes: list[int]) -> tuple[float, int]:
    """CPU seconds to embed `texts` once with the model alone (one thread, this process, its calls
    planned by length as the model plans them) at the best of `batch_sizes`, and that size."""
    best: tuple[float, int] | None = None
    for size in batch_sizes:
        embedder = OnnxMiniLmEmbedder(threads=1, batch_size=size)
        embedder.embed(texts[:64])  # the session's first runs allocate: not measured
        cpu_started = time.process_time()
        embedder.embed(texts)
        cpu = time.process_time() - cpu_started
        best = min(best or (cpu, size), (cpu, size))
    return best


async def paced(producer, turns: list[dict], rate: float, topic: str, ledger: Ledger, label: str) -> dict:
    """Publish `turns` at `rate` turns/s; each turn's publish time against the moment its job is
    committed and the moment recall can find it (polled every 20 ms)."""
    tenant = turns[0]["tenant_id"]
    sent_at: dict[str, float] = {}
    found_at: dict[str, float] = {}
    step_s = 0.05
    per_step = rate * step_s

    async def watch() -> None:
        while True:
            now = time.time()
            for turn_id in await ledger.findable(tenant) - found_at.keys():
                found_at[turn_id] = now
            await asyncio.sleep(0.02)

    watcher = asyncio.create_task(watch())
    owed = 0.0
    with tqdm(total=len(turns), unit="turn", desc=label) as progress:
        index = 0
        while index < len(turns):
            tick = time.time()
            owed += per_step
            chunk = turns[index : index + int(owed)]
            owed -= len(chunk)
            for key, value in records(chunk):
                sent_at[json.loads(value)["turn_id"]] = time.time()
                await producer.send(topic, key=key, value=value)
            index += len(chunk)
            progress.update(len(chunk))
            await asyncio.sleep(max(0.0, step_s - (time.time() - tick)))
    while await ledger.finished(tenant) < len(turns):
        await asyncio.sleep(0.1)
    commits = await ledger.commit_times(tenant)
    kept = await ledger.kept_turns(tenant)  # turns with an episode (junk keeps none: never findable)
    deadline = time.time() + 30
    while kept - found_at.keys() and time.time() < deadline:
        await asyncio.sleep(0.05)
    watcher.cancel()
    committed = [(commits[k] - v) * 1000 for k, v in sent_at.items()]
    findable = [(found_at[k] - sent_at[k]) * 1000 for k in kept if k in found_at]
    return {
        "rate_turns_per_s": round(rate, 1),
        "commit_ms_p50": round(statistics.median(committed), 1),
        "commit_ms_p99": round(percentile(committed, 99), 1),
        "findable_ms_p50": round(statistics.median(findable), 1) if findable else None,
        "findable_ms_p99": round(percentile(findable, 99), 1) if findable else None,
        "findable_turns": f"{len(findable)}/{len(kept)}",
    }


def publish_blocking(records_: list[tuple[bytes, bytes]], bootstrap: str, topic: str) -> int:
    """Publish from a process of its own: the chat platform's producer is not the pipeline's CPU."""
    return asyncio.run(publish_records(records_, bootstrap, topic))


def records(turns: list[dict]) -> list[tuple[bytes, bytes]]:
    return [(f"{t['tenant_id']}:{t['user_id']}".encode(), json.dumps(t).encode()) for t in turns]


async def wait_finished(ledger: Ledger, tenant: str, total: int, progress: tqdm) -> None:
    done = 0
    while done < total:
        await asyncio.sleep(0.2)
        now = await ledger.finished(tenant)
        progress.update(now - done)
        done = now


async def run(args: argparse.Namespace) -> dict:
    turns = list(locomo_turns(Path(args.locomo)))[: args.turns or None]
    data_dir = Path(tempfile.mkdtemp(prefix="bs-bench-"))
    with EmbeddedBroker() as broker:
        run_id = uuid.uuid4().hex[:6]
        settings = Settings(
            data_dir=data_dir, broker=broker.url, sql_url=args.sql_url, app_id=f"bench-{run_id}",
            turns_topic=f"bench-{run_id}.turns", batch_size=args.batch_size, topic_partitions=4,
        )
        ledger = Ledger(settings.resolved_sql_url)
        async with open_clients(settings, broker.url) as clients:
            stop = asyncio.Event()
            worker = asyncio.create_task(run_worker(settings, broker.url, clients, stop))
            # warm-up: a running worker, not a cold one, is measured (consumer group joined, model
            # processes, SQL statement caches and vector segments in use): two batches, another tenant
            warm = [{**t, "tenant_id": "warmup"} for t in turns[: 2 * args.batch_size]]
            await publish_records(records(warm), broker.bootstrap, settings.turns_topic)
            while await ledger.finished("warmup") < len(warm):
                await asyncio.sleep(0.1)

            # 1. throughput: the whole backlog at once, from a separate producer process
            publisher = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
            publisher_pid = await asyncio.get_running_loop().run_in_executor(publisher, os.getpid)
            backlog = records(turns)
            started = time.time()
            skip = {broker.pid, publisher_pid}
            cpu_started = process_cpu_seconds(skip)
            with tqdm(total=len(turns), unit="turn", desc="ingest") as progress:
                await asyncio.get_running_loop().run_in_executor(
                    publisher, publish_blocking, backlog, broker.bootstrap, settings.turns_topic
                )
                published = time.time()
                await wait_finished(ledger, "locomo", len(turns), progress)
            # the vector points follow the SQL commits through the projector: wait for them too
            while clients.projector is not None and (await clients.projector.backlog()).points:
                await asyncio.sleep(0.1)
            projected = time.time()
            # only now: the publisher's teardown (joined on the event loop, ~0.6 s) would stall the
            # worker being measured and take a core from it
            publisher.shutdown()
            cpu_seconds = process_cpu_seconds(skip) - cpu_started
            commits = await ledger.commit_times("locomo")
            elapsed = max(commits.values()) - started
            counts = await ledger.counts("locomo")
            capacity = len(turns) / elapsed

            # 2. freshness: paced at 50 % and 90 % of the capacity just measured
            producer = AIOKafkaProducer(bootstrap_servers=broker.bootstrap, acks="all", linger_ms=1)
            await producer.start()
            freshness = {}
            for share in (50, 90):
                paced_turns = [{**t, "tenant_id": f"locomo-paced-{share}"} for t in turns[: args.latency_turns]]
                freshness[f"at_{share}_percent"] = await paced(
                    producer, paced_turns, capacity * share / 100, settings.turns_topic, ledger, f"paced {share} %"
                )
            await producer.stop()
            stop.set()
            await worker
        await ledger.close()

    # 3. the floor: every raw turn embedded once by the model alone, at its best batch size
    floor_cpu, floor_batch = embedding_floor([t["text"] for t in turns], args.floor_batch_sizes)
    return {
        "turns": len(turns),
        **counts,
        "publish_seconds": round(published - started, 2),
        "end_to_end_seconds": round(elapsed, 2),
        "vectors_projected_seconds": round(projected - started, 2),  # until the projector's backlog was empty
        "turns_per_s": round(capacity, 1),
        "pipeline_cpu_seconds": round(cpu_seconds, 2),  # this process and its model processes, not the broker
        "floor_cpu_seconds": round(floor_cpu, 2),  # each raw turn embedded once, model alone
        "floor_batch_size": floor_batch,
        "cpu_ratio": round(floor_cpu / cpu_seconds, 3),
        "freshness": freshness,
        "sql": settings.resolved_sql_url.split("://")[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sql-url", help="default: SQLite in a temporary directory")
    parser.add_argument("--locomo", default=str(DEFAULT_PATH), help="locomo10.json (default: %(default)s)")
    parser.add_argument("--turns", type=int, default=0, help="only the first N turns (default: all)")
    parser.add_argument("--batch-size", type=int, default=256, help="the worker's batch of turns (default 256)")
    parser.add_argument("--latency-turns", type=int, default=300, help="turns paced at each share of the capacity")
    parser.add_argument(
        "--floor-batch-sizes", default="16,32,64", type=lambda v: [int(x) for x in v.split(",")],
        help="model batch sizes tried for the embedding floor, the best kept (default 16,32,64)",
    )
    args = parser.parse_args()
    if not Path(args.locomo).exists():
        raise SystemExit(f"no LoCoMo file at {args.locomo}; pass --locomo")
    result = asyncio.run(run(args))
    print(json.dumps(result, indent=2))
    out = Path(__file__).parent / "results"
    out.mkdir(exist_ok=True)
    (out / f"ingest-{int(time.time())}.json").write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
