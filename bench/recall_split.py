"""Where a recall's CPU goes without the model: SQL reads, the rest of the event loop, other threads.

Run: .venv/bin/python bench/recall_split.py --data-dir DIR [--size 1000000] [--queries 400] [--passes 2]

Sequential recalls through `RecallService.recall` with the production wiring (audit log and access
counts flushed in the background) over a dataset `bench/recall.py` built. A warm-up pass caches
every query embedding, so the passes measured run no model. Per recall: the event-loop thread's
CPU, of it the SQL reads (`RecallReader._run`, which runs on the loop), and the process's CPU
(the rest is the Edge worker and the audit and access writes).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sinks.sql.reader as reader_module  # noqa: E402
from bench import recall_data  # noqa: E402
from bench.recall import requests_for, run_clients  # noqa: E402
from embedding.embedder import load_default_embedder  # noqa: E402
from sidecar.recall.access import AccessRecorder  # noqa: E402
from sidecar.recall.audit import AuditLog  # noqa: E402
from sidecar.recall.service import RecallService  # noqa: E402
from sinks.sql.store import SqlMemoryStore  # noqa: E402
from sinks.vectors.edge import EdgeVectorIndex  # noqa: E402
from streams.gc_tuning import tune_for_throughput  # noqa: E402


def time_sql(spent: list[float]) -> None:
    """Add the thread CPU of every recall read to `spent[0]`."""
    run = reader_module.RecallReader._run

    def timed(self, plan, convert):
        started = time.thread_time()
        try:
            return run(self, plan, convert)
        finally:
            spent[0] += time.thread_time() - started

    reader_module.RecallReader._run = timed


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--episode-share", type=float, default=0.5)
    parser.add_argument("--queries", type=int, default=400)
    parser.add_argument("--passes", type=int, default=2)
    args = parser.parse_args()
    directory = recall_data.dataset_dir(args.data_dir, args.size, args.users, args.episode_share)
    store = SqlMemoryStore(f"sqlite+aiosqlite:///{directory / 'memory.db'}")
    await store.setup()
    index = EdgeVectorIndex(directory / "vectors")
    await index.setup()
    service = RecallService(
        store, index, load_default_embedder(), audit=AuditLog(store), access_recorder=AccessRecorder(store)
    )
    sql = [0.0]
    time_sql(sql)
    await service.start()
    tune_for_throughput()
    requests = requests_for(recall_data.user_ids(args.users), args.queries, seed=555)
    try:
        await run_clients(service.recall, requests, 1)  # warm-up: every query embedding cached
        for n in range(args.passes):
            sql[0] = 0.0
            thread, process = time.thread_time(), time.process_time()
            await run_clients(service.recall, requests, 1)
            thread, process = time.thread_time() - thread, time.process_time() - process
            per = 1000 / len(requests)
            print(
                f"pass {n}: event loop {thread * per:.2f} ms per recall (SQL reads {sql[0] * per:.2f}, "
                f"the rest {(thread - sql[0]) * per:.2f}); process {process * per:.2f} ms"
            )
    finally:
        await service.close()
        await index.close()
        await store.close()


if __name__ == "__main__":
    asyncio.run(main())
