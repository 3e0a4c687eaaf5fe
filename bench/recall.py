"""Recall latency and throughput on the embedded defaults (SQLite + FTS5, Qdrant Edge, ONNX MiniLM).

Run: .venv/bin/python bench/recall.py [--sizes 10000,100000,1000000] [--episode-share 0.5] [--users 10000]
     [--queries 1000] [--concurrency 1,32] [--data-dir .beliefstream/bench-recall]

A size counts stored items: memories plus episodes (`--episode-share` of them episodes). Datasets
(`bench/recall_data.py`) are built once per size under --data-dir and reused. Every recall is
`RecallService.recall` end to end as the sidecar calls it, query embedding included, with the
production wiring (audit log and access counts flushed in the background). Clients are asyncio
tasks in one process, as the sidecar serves them. Stage times come from thin timing wrappers around
the store, the vector index and the embedder (a call's wall time, queueing included).

Measured in the same run beside recall, per concurrency: the query model alone (the same queries
and clients through `QueryEmbedder`), and the bare dense path (query embedding, then one vector
search of the user's memories over the same shard, as many candidates as recall asks for).
The keyword indexes are merged first, as the worker's hourly maintenance keeps them
(`agents.keyword_merge`; a no-op once merged).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sidecar.recall.service as service_module  # noqa: E402
from agents.keyword_merge import merge_keyword_indexes  # noqa: E402
from bench import recall_data, recall_texts  # noqa: E402
from embedding.embedder import load_default_embedder  # noqa: E402
from sidecar.auth import Principal  # noqa: E402
from sidecar.recall.access import AccessRecorder  # noqa: E402
from sidecar.recall.audit import AuditLog  # noqa: E402
from sidecar.recall.config import BALANCED  # noqa: E402
from sidecar.recall.models import RecallRequest  # noqa: E402
from sidecar.recall.query_embed import QueryEmbedder  # noqa: E402
from sidecar.recall.scope import resolve_scope  # noqa: E402
from sidecar.recall.service import RecallService  # noqa: E402
from sinks.sql.manage_store import MaintenanceStore  # noqa: E402
from sinks.sql.store import SqlMemoryStore  # noqa: E402
from sinks.vectors.edge import EdgeVectorIndex  # noqa: E402
from streams.gc_tuning import tune_for_throughput  # noqa: E402
from streams.settings import Settings  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DATA_DIR = REPO / ".beliefstream" / "bench-recall"
RESULTS = REPO / "bench" / "results"

STAGES = {
    "embed": ("embedder", "aembed"),
    "vector_search": ("vectors", "search"),
    "keyword": ("store", "keyword_candidates"),
    "pinned_linked": ("store", "pinned_and_linked"),  # the pinned rows and the linked ids: one statement
    "hydrate": ("store", "hydrate"),
    "episode_keyword": ("store", "episode_keyword_candidates"),
    "hydrate_episodes": ("store", "hydrate_episodes"),
    "neighbours": ("store", "episode_neighbours"),
}


class Timed:
    """Forwards to `inner`; the named coroutine methods record their wall time into `times`."""

    def __init__(self, inner, methods: dict[str, str], times: dict[str, list[float]]) -> None:
        self._inner, self._methods, self._times = inner, methods, times

    def __getattr__(self, name: str):
        attribute = getattr(self._inner, name)
        stage = self._methods.get(name)
        if stage is None:
            return attribute

        async def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return await attribute(*args, **kwargs)
            finally:
                self._times[stage].append((time.perf_counter() - started) * 1000)

        return timed


def timed_select(times: dict[str, list[float]]):
    """`select` + `to_result` of the service module, timed (restored by the caller)."""
    select, to_result = service_module.select, service_module.to_result

    def timed_select_(*args, **kwargs):
        started = time.perf_counter()
        try:
            return select(*args, **kwargs)
        finally:
            times["select"].append((time.perf_counter() - started) * 1000)

    def timed_result(*args, **kwargs):
        started = time.perf_counter()
        try:
            return to_result(*args, **kwargs)
        finally:
            times["select"][-1] += (time.perf_counter() - started) * 1000

    return timed_select_, timed_result


def save(path: Path, write) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write(path)


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def load() -> str:
    return open("/proc/loadavg").read().split()[0] if os.path.exists("/proc/loadavg") else "?"


async def pool_vectors(data_dir: Path, embedder, pool: list, name: str = "pool") -> np.ndarray:
    """The real embeddings of the pool's distinct texts, cached under `data_dir`."""
    cache = data_dir / f"{name}-v{recall_data.VERSION}-{len(pool)}.npy"
    if cache.exists():
        return np.load(cache)
    started = time.perf_counter()
    vectors = embedder.embed([text for _, text in pool])
    save(cache, lambda path: np.save(path, vectors))
    print(f"embedded {len(pool):,} template texts ({name}) for real in {time.perf_counter() - started:.1f} s")
    return vectors


async def run_clients(call, requests: list[tuple[Principal, RecallRequest]], clients: int):
    """`clients` tasks pulling `call(principal, request)` from one queue: each call's latency (ms),
    its result, the wall time and this process's CPU seconds."""
    queue = iter(requests)
    latencies: list[float] = []
    results: list = []

    async def client() -> None:
        for principal, request in queue:
            started = time.perf_counter()
            results.append(await call(principal, request))
            latencies.append((time.perf_counter() - started) * 1000)

    cpu_started, started = time.process_time(), time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
    return latencies, results, time.perf_counter() - started, time.process_time() - cpu_started


async def query_embedding_ceiling(embedder, requests: list[tuple[Principal, RecallRequest]], clients: int) -> dict:
    """Recalls/s if a recall did nothing but embed its query: the same queries and clients, through
    the sidecar's `QueryEmbedder` (shared model calls) with nothing else. No recall can beat it."""
    queries = QueryEmbedder(embedder, cache_size=0)
    _, _, wall, cpu = await run_clients(lambda _, request: queries.embed(request.query), requests, clients)
    return {"recalls_per_s": len(requests) / wall, "cpu_ms_per_query": cpu / len(requests) * 1000}


async def bare_dense(embedder, index, requests: list[tuple[Principal, RecallRequest]], clients: int) -> dict:
    """The bare dense path of the same queries and clients: the query embedding (`QueryEmbedder`, its
    cache as recall's) and one vector search of the user's memories, as many candidates as recall's
    memory search asks for; nothing else."""
    queries = QueryEmbedder(embedder)

    async def call(principal: Principal, request: RecallRequest):
        scope = resolve_scope(principal, request)
        vector = await queries.embed(request.query)
        return await index.search(vector, scope.vector_filter(), BALANCED.candidate_limit(request.limit))

    latencies, _, wall, cpu = await run_clients(call, requests, clients)
    return {
        "p50_ms": pct(latencies, 50),
        "p99_ms": pct(latencies, 99),
        "per_s": len(requests) / wall,
        "cpu_ms": cpu / len(requests) * 1000,
    }


def requests_for(users: list[tuple[str, str]], n: int, seed: int) -> list[tuple[Principal, RecallRequest]]:
    rng = random.Random(seed)
    out = []
    for text in recall_texts.questions(rng, n):
        tenant, user = rng.choice(users)
        agent = recall_data.AGENT if rng.random() < 0.3 else None
        out.append((Principal(tenant, agent_id=agent, key_id="bench"), RecallRequest(user_id=user, query=text)))
    return out


async def measure(directory: Path, users: int, embedder, args) -> dict:
    store = SqlMemoryStore(f"sqlite+aiosqlite:///{directory / 'memory.db'}", sqlite_read_threads=args.sqlite_read_threads)
    await store.setup()
    for merged in await merge_keyword_indexes(MaintenanceStore.of(store), pages=50):  # as the worker's hourly job
        print(f"  merged {merged.index}: {merged.segments_before} -> {merged.segments_after} segments")
    index = EdgeVectorIndex(directory / "vectors")
    await index.setup()
    times: dict[str, list[float]] = defaultdict(list)
    methods = {"store": {}, "vectors": {}, "embedder": {}}
    for stage, (part, method) in STAGES.items():
        methods[part][method] = stage
    timed_store = Timed(store, methods["store"], times)
    service = RecallService(
        timed_store,
        Timed(index, methods["vectors"], times),
        Timed(embedder, methods["embedder"], times),
        audit=AuditLog(store),
        access_recorder=AccessRecorder(store),
    )
    original = service_module.select, service_module.to_result
    service_module.select, service_module.to_result = timed_select(times)
    user_list = recall_data.user_ids(users)
    out: dict = {"load_before": load(), "dataset": json.loads((directory / "complete.json").read_text())}
    await service.start()
    tune_for_throughput()  # as `run_sidecar` does
    try:
        await run_clients(service.recall, requests_for(user_list, 100, seed=1), 4)  # warm-up: caches, pools
        for clients in args.concurrency:
            times.clear()
            requests = requests_for(user_list, args.queries, seed=100 + clients)
            loop_cpu = time.thread_time()  # this thread runs the event loop: recall's serial part
            latencies, results, wall, cpu = await run_clients(service.recall, requests, clients)
            loop_cpu = time.thread_time() - loop_cpu
            returned = [len(result.memories) for result in results]
            out[f"clients_{clients}"] = {
                "query_embedding_only": await query_embedding_ceiling(embedder, requests, clients),
                "bare_dense": await bare_dense(embedder, index, requests, clients),
                "cpu_ms_per_recall": cpu / len(latencies) * 1000,
                "cores_busy": cpu / wall,
                "loop_cpu_ms_per_recall": loop_cpu / len(latencies) * 1000,
                "loop_busy": loop_cpu / wall,
                "n": len(latencies),
                "p50_ms": pct(latencies, 50),
                "p95_ms": pct(latencies, 95),
                "p99_ms": pct(latencies, 99),
                "max_ms": max(latencies),
                "recalls_per_s": len(latencies) / wall,
                "mean_returned": sum(returned) / len(returned),
                "mean_quotes": sum(sum(1 for m in r.memories if m.type == "episode") for r in results) / len(results),
                "stages": {
                    stage: {"calls": len(v), "p50_ms": pct(v, 50), "p99_ms": pct(v, 99), "mean_ms": float(np.mean(v))}
                    for stage, v in times.items()
                    if v
                },
            }
    finally:
        service_module.select, service_module.to_result = original
        await service.close()
        await index.close()
        await store.close()
    out["load_after"] = load()
    return out


def report(size: int, result: dict, concurrency: list[int]) -> None:
    meta = result["dataset"]
    print(
        f"\n== {size:,} items: {meta['memories']:,} memories + {meta['episodes']:,} episodes "
        f"(load {result['load_before']} → {result['load_after']})"
    )
    print(
        f"{'clients':>7} {'p50':>8} {'p95':>8} {'p99':>8} {'max':>8} {'recalls/s':>10} {'returned':>9} {'quotes':>7} "
        f"{'CPU/recall':>11} {'cores':>6} {'loop CPU':>9} {'loop busy':>10} {'embed-only/s':>13} {'bare p50':>9} {'bare/s':>7} {'p50 ratio':>10} "
        f"{'/s ratio':>9}"
    )
    for clients in concurrency:
        r = result[f"clients_{clients}"]
        bare, alone = r["bare_dense"], r["query_embedding_only"]["recalls_per_s"]
        print(
            f"{clients:>7} {r['p50_ms']:>7.1f}m {r['p95_ms']:>7.1f}m {r['p99_ms']:>7.1f}m {r['max_ms']:>7.1f}m "
            f"{r['recalls_per_s']:>10.0f} {r['mean_returned']:>9.1f} {r['mean_quotes']:>7.1f} "
            f"{r['cpu_ms_per_recall']:>9.1f}ms {r['cores_busy']:>6.2f} {r['loop_cpu_ms_per_recall']:>7.1f}ms "
            f"{r['loop_busy']:>10.2f} {alone:>13.0f} {bare['p50_ms']:>8.1f}m "
            f"{bare['per_s']:>7.0f} {r['p50_ms'] / bare['p50_ms']:>9.2f}x {r['recalls_per_s'] / alone:>9.2f}"
        )
    for clients in concurrency:
        stages = result[f"clients_{clients}"]["stages"]
        parts = "  ".join(f"{k} {v['p50_ms']:.1f}/{v['p99_ms']:.1f}" for k, v in stages.items())
        calls = stages.get("embed", {}).get("calls")
        print(f"  stages p50/p99 ms @{clients}: {parts}  (embed calls {calls})")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument(
        "--episode-share", type=float, default=0.5, help="share of each size's items that are episodes (0 ≤ s < 1)"
    )
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--concurrency", default="1,32")
    parser.add_argument("--data-dir", type=Path, default=DATA_DIR)
    parser.add_argument("--build-only", action="store_true", help="build the missing datasets, measure nothing")
    parser.add_argument(
        "--sqlite-read-threads", type=int, default=0, help="recall's SQLite reader threads (BELIEFSTREAM_SQLITE_READ_THREADS; 0: on the event loop)"
    )
    parser.add_argument(
        "--embed-niceness",
        type=int,
        default=Settings.model_fields["embed_niceness"].default,
        help="how far below the event loop's CPU priority the model's threads run (BELIEFSTREAM_EMBED_NICENESS)",
    )
    parser.add_argument("--label", default="", help="a note stored with the JSON result")
    args = parser.parse_args()
    args.concurrency = [int(c) for c in args.concurrency.split(",")]
    sizes = [int(s) for s in args.sizes.split(",")]
    try:
        recall_data.split(1, args.episode_share)
    except ValueError as exc:
        raise SystemExit(f"--episode-share: {exc}") from None
    embedder = load_default_embedder(niceness=args.embed_niceness)
    pool = recall_texts.template_pool(random.Random(3))
    vectors = await pool_vectors(args.data_dir, embedder, pool)
    episode_texts = recall_texts.episode_pool(random.Random(4))
    episode_vectors = await pool_vectors(args.data_dir, embedder, episode_texts, "episode-pool")
    results = {"label": args.label, "at": time.strftime("%Y-%m-%dT%H:%M:%S"), "sizes": {}}
    for size in sizes:
        directory = recall_data.dataset_dir(args.data_dir, size, args.users, args.episode_share)
        if not (directory / "complete.json").exists():
            if directory.exists():
                raise SystemExit(f"{directory} is an incomplete build: remove it and run again")
            print(f"building {size:,} items ({args.episode_share:.0%} episodes) for {args.users:,} users under {directory}")
            await recall_data.build(
                directory,
                size,
                args.users,
                pool,
                vectors,
                episode_share=args.episode_share,
                episode_texts=episode_texts,
                episode_vectors=episode_vectors,
            )
        if args.build_only:
            continue
        result = await measure(directory, args.users, embedder, args)
        results["sizes"][str(size)] = result
        report(size, result, args.concurrency)
    out = RESULTS / f"recall-{time.strftime('%Y%m%d-%H%M%S')}.json"
    save(out, lambda path: path.write_text(json.dumps(results, indent=2)))
    print(f"\nwritten {out}")


if __name__ == "__main__":
    asyncio.run(main())
