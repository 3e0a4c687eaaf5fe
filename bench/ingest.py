"""Ingest benchmark: every LoCoMo turn through the real broker and the whole write path.

Reports, from one run on one machine: end-to-end turns/s and embedded texts/s (memories and
episodes) with the backlog published at once; publish→SQL-commit latency p50/p99 at a paced rate
below capacity; and the embedder alone on the same texts (every memory and episode text the
pipeline embedded), so the ratio to the embedding ceiling is measured, not guessed.

    .venv/bin/python bench/ingest.py [--sql-url URL] [--rate 200] [--latency-turns 1000] [--locomo PATH] [--turns N]
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

from aiokafka import AIOKafkaProducer
from sqlalchemy import inspect, text
from sqlalchemy.ext.asyncio import create_async_engine
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from locomo import DEFAULT_PATH, locomo_turns  # noqa: E402

from beliefs.episodes import Episode  # noqa: E402
from embedding.embedder import Embedder  # noqa: E402
from launch.runtime import open_clients, run_worker  # noqa: E402
from reading.episode_text import SessionTails  # noqa: E402
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

    async def finished(self, tenant: str) -> int:
        async with self.engine.connect() as conn:
            query = text("SELECT count(*) FROM jobs WHERE tenant_id = :t AND state != 'queued'")
            return int((await conn.execute(query, {"t": tenant})).scalar_one())

    async def commit_times(self, tenant: str) -> dict[str, float]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(text("SELECT turn_id, updated_at FROM jobs WHERE tenant_id = :t"), {"t": tenant})
            return {turn_id: as_epoch(updated) for turn_id, updated in rows}

    async def texts_by_batch(self, tenant: str) -> tuple[list[list[str]], int, int]:
        """The texts grouped as the pipeline embedded them, memories then episodes (a batch's rows
        share `created_at`), with the number of memory and episode texts. An episode's embedded
        text is rebuilt as the pipeline built it (`reading.episode_text`: its speaker and the turn
        before it in its session), in the order the turns were said."""
        groups: dict[str, list[str]] = {}
        counts = [0, 0]
        tails = SessionTails()
        async with self.engine.connect() as conn:
            tables = await conn.run_sync(lambda sync: set(inspect(sync).get_table_names()))
            memories = (
                await conn.execute(
                    text("SELECT created_at, text FROM memories WHERE tenant_id = :t ORDER BY created_at"), {"t": tenant}
                )
            ).all()
            for created_at, row_text in memories:
                groups.setdefault(str(created_at), []).append(row_text)
            counts[0] = len(memories)
            if "episodes" in tables:  # a schema before 0005 has no episodes
                episodes = (
                    await conn.execute(
                        text(
                            "SELECT created_at, id, user_id, session_id, turn_id, role, speaker, text, said_at, trust "
                            "FROM episodes WHERE tenant_id = :t ORDER BY created_at, said_at"
                        ),
                        {"t": tenant},
                    )
                ).all()
                for row in episodes:
                    said = Episode(
                        id=row.id, tenant_id=tenant, user_id=row.user_id, session_id=row.session_id,
                        turn_id=row.turn_id, role=row.role, speaker=row.speaker, text=row.text,
                        said_at=as_datetime(row.said_at), created_at=as_datetime(row.created_at), trust=row.trust,
                    )
                    groups.setdefault(str(row.created_at), []).extend(tails.texts([said]))
                counts[1] = len(episodes)
        return [groups[key] for key in sorted(groups)], counts[0], counts[1]

    async def said_texts(self, tenant: str) -> list[str]:
        """Every memory text and every episode's text as said (what embedding the turn alone costs)."""
        async with self.engine.connect() as conn:
            tables = await conn.run_sync(lambda sync: set(inspect(sync).get_table_names()))
            out: list[str] = []
            for table in (t for t in ("memories", "episodes") if t in tables):
                rows = await conn.execute(text(f"SELECT text FROM {table} WHERE tenant_id = :t"), {"t": tenant})
                out += [row_text for (row_text,) in rows]
            return out

    async def close(self) -> None:
        await self.engine.dispose()


def embed_alone(embedder: Embedder, calls: list[list[str]]) -> tuple[float, float]:
    """Wall and CPU seconds for the embedder alone, one model call per list of texts."""
    started, cpu_started = time.perf_counter(), time.process_time()
    for texts in calls:
        embedder.embed(texts)
    return time.perf_counter() - started, time.process_time() - cpu_started


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
            per_batch, memories, episodes = await ledger.texts_by_batch("locomo")
            texts = [embedded for batch in per_batch for embedded in batch]

            # 2. latency: paced below capacity, each turn's publish time against its job's commit time
            paced = [{**t, "tenant_id": "locomo-paced"} for t in turns[: args.latency_turns]]
            sent_at: dict[str, float] = {}
            producer = AIOKafkaProducer(bootstrap_servers=broker.bootstrap, acks="all", linger_ms=1)
            await producer.start()
            step = max(1, args.rate // 20)  # a chunk every 50 ms
            with tqdm(total=len(paced), unit="turn", desc="paced") as progress:
                for start in range(0, len(paced), step):
                    tick = time.time()
                    for key, value in records(paced[start : start + step]):
                        sent_at[json.loads(value)["turn_id"]] = time.time()
                        await producer.send(settings.turns_topic, key=key, value=value)
                    progress.update(len(paced[start : start + step]))
                    await asyncio.sleep(max(0.0, 0.05 - (time.time() - tick)))
            await producer.stop()
            while await ledger.finished("locomo-paced") < len(paced):
                await asyncio.sleep(0.1)
            paced_commits = await ledger.commit_times("locomo-paced")
            latencies = [(paced_commits[k] - v) * 1000 for k, v in sent_at.items()]
            stop.set()
            await worker

            # 3. the embedder alone on the same texts, same batch size, same process: the
            # process's default embedder (two model threads), best of three, so the ceiling is high
            chunks = [texts[i : i + settings.batch_size] for i in range(0, len(texts), settings.batch_size)]
            embed_seconds, embed_cpu_seconds = min(embed_alone(clients.embedder, chunks) for _ in range(3))
            # the same embedder on exactly the calls the pipeline made (one per batch of turns)
            same_calls_seconds, _ = min(embed_alone(clients.embedder, per_batch) for _ in range(3))
            # the model's work had every episode been embedded from its turn alone (its text as said)
            said = await ledger.said_texts("locomo")
            said_chunks = [said[i : i + settings.batch_size] for i in range(0, len(said), settings.batch_size)]
            _, said_cpu_seconds = min(embed_alone(clients.embedder, said_chunks) for _ in range(3))
        await ledger.close()

    turns_per_s = len(turns) / elapsed
    texts_per_s = len(texts) / elapsed
    embed_per_s = len(texts) / embed_seconds
    return {
        "turns": len(turns),
        "memories": memories,
        "episodes": episodes,
        "embedded_texts": len(texts),
        "texts_per_turn": round(len(texts) / len(turns), 3),
        "publish_seconds": round(published - started, 2),
        "end_to_end_seconds": round(elapsed, 2),
        "vectors_projected_seconds": round(projected - started, 2),  # until the projector's backlog was empty
        "turns_per_s": round(turns_per_s, 1),
        "texts_per_s": round(texts_per_s, 1),
        "embedder_only_texts_per_s": round(embed_per_s, 1),
        "pipeline_cpu_seconds": round(cpu_seconds, 2),  # this process and its model process, not the broker
        "embedder_only_cpu_seconds": round(embed_cpu_seconds, 2),
        "embedder_only_cpu_seconds_turns_alone": round(said_cpu_seconds, 2),  # episodes without speaker/previous turn
        "ratio_to_embedder_ceiling": round(texts_per_s / embed_per_s, 3),
        "embedder_only_same_calls_texts_per_s": round(len(texts) / same_calls_seconds, 1),
        "ratio_to_same_calls_ceiling": round(texts_per_s / (len(texts) / same_calls_seconds), 3),
        "embedder_ceiling_turns_per_s": round(embed_per_s / (len(texts) / len(turns)), 1),
        "paced_rate_turns_per_s": args.rate,
        "latency_ms_p50": round(statistics.median(latencies), 1),
        "latency_ms_p99": round(percentile(latencies, 99), 1),
        "sql": settings.resolved_sql_url.split("://")[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sql-url", help="default: SQLite in a temporary directory")
    parser.add_argument("--locomo", default=str(DEFAULT_PATH), help="locomo10.json (default: %(default)s)")
    parser.add_argument("--turns", type=int, default=0, help="only the first N turns (default: all)")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--rate", type=int, default=200, help="paced publish rate for the latency phase")
    parser.add_argument("--latency-turns", type=int, default=1000)
    args = parser.parse_args()
    result = asyncio.run(run(args))
    print(json.dumps(result, indent=2))
    out = Path(__file__).parent / "results"
    out.mkdir(exist_ok=True)
    (out / f"ingest-{int(time.time())}.json").write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
