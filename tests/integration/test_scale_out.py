"""Scale-out, shown: two worker processes in one consumer group on a 4-partition turns topic, with
PostgreSQL as the authority. One is SIGKILLed while turns are still being processed; the other takes
its partitions over. Every turn is processed once (no loss, no duplicate memory or episode), and
every user is maintained once per window by the worker owning the user's partition, none twice.

Both workers run with `BELIEFSTREAM_VECTOR_PROJECTOR=off`: they write SQL and the vector outbox and
never open the embedded shard (its owner, absent here, projects it); the assertions read SQL."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest
import sqlalchemy as sa

from agents.ownership import key_digest
from bench.crashing import TENANT, job_states, make_turns, outcome, wait_finished
from sinks.sql.engine import create_engine
from streams.broker import EmbeddedBroker
from streams.partitioner import partition_for, turn_key
from streams.settings import Settings
from tests.integration.harness import publish
from tests.integration.workers import WorkerProcess

pytestmark = [pytest.mark.integration, pytest.mark.postgres]

USERS = 60  # six turns each (`make_turns`): one, then three (the kill comes during these), then two
WAVES = (0, 1, 1, 1, 2, 2)  # the wave of each user's turns, in order
PARTITIONS = 4
WINDOW_S = 4


def worker_env(broker: EmbeddedBroker, sql_url: str, run: str) -> dict[str, str]:
    return {
        "BELIEFSTREAM_BROKER": broker.url,
        "BELIEFSTREAM_SQL_URL": sql_url,
        "BELIEFSTREAM_APP_ID": f"so-{run}",
        "BELIEFSTREAM_TURNS_TOPIC": f"so-{run}.turns",
        "BELIEFSTREAM_DLQ_TOPIC": f"so-{run}.turns.dlq",
        "BELIEFSTREAM_EVENTS_TOPIC": f"so-{run}.memory.events",
        "BELIEFSTREAM_AUDIT_TOPIC": f"so-{run}.recall.audit",
        "BELIEFSTREAM_ESCALATIONS_TOPIC": f"so-{run}.escalations",
        "BELIEFSTREAM_TOPIC_PARTITIONS": str(PARTITIONS),
        "BELIEFSTREAM_MAINTENANCE_WINDOW_S": str(WINDOW_S),
        "BELIEFSTREAM_MAINTENANCE_TICK_S": "1",
        "BELIEFSTREAM_BROKER_SESSION_TIMEOUT_S": "6",
        "BELIEFSTREAM_BATCH_SIZE": "8",  # many small batches: the kill always finds some unwritten
        "BELIEFSTREAM_INGEST_EMBEDDER": "thread",
        "BELIEFSTREAM_EMBED_THREADS": "1",
        "BELIEFSTREAM_VECTOR_PROJECTOR": "off",
    }


async def until(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        await asyncio.sleep(0.2)


def split_between(a: WorkerProcess, b: WorkerProcess) -> bool:
    """Both workers own partitions, none twice, all of them between the two."""
    owned_a, owned_b = a.owned(), b.owned()
    return bool(owned_a and owned_b) and not owned_a & owned_b and owned_a | owned_b == set(range(PARTITIONS))


async def duplicate_episodes(url: str) -> int:
    engine = create_engine(url)
    try:
        async with engine.connect() as conn:
            statement = sa.text("SELECT COUNT(*) - COUNT(DISTINCT turn_id) FROM episodes WHERE tenant_id = :t")
            return int((await conn.execute(statement, {"t": TENANT})).scalar_one())
    finally:
        await engine.dispose()


@pytest.mark.parametrize("isolated_sql_url", ["postgres"], indirect=True)
async def test_two_workers_share_the_turns_and_the_maintenance_and_survive_a_sigkill(
    tmp_path: Path, broker: EmbeddedBroker, isolated_sql_url: str
) -> None:
    run = uuid.uuid4().hex[:8]
    env = worker_env(broker, isolated_sql_url, run)
    first, second = (WorkerProcess(tmp_path / name, env) for name in ("a", "b"))
    turns = [dict(t, tenant_id=TENANT) for t in make_turns(USERS * 6, prefix=f"s{run}")]
    waves = [[t for i, t in enumerate(turns) if WAVES[i % 6] == wave] for wave in range(3)]
    users = {key_digest(f"{TENANT}:{t['user_id']}") for t in turns}
    ids = [t["turn_id"] for t in turns]
    publisher = Settings(broker=broker.url, turns_topic=env["BELIEFSTREAM_TURNS_TOPIC"])  # where the test publishes
    try:
        first.start()
        second.start()
        await until(lambda: split_between(first, second), 240, "the two workers to split the partitions")
        owned_by_first, owned_by_second = first.owned(), second.owned()
        assert owned_by_first is not None and owned_by_second is not None

        await publish(publisher, waves[0])  # both workers write and maintain their own users
        await until(
            lambda: bool(first.window_runs() and second.window_runs()), 120, "both workers to close a window"
        )
        await publish(publisher, waves[1])
        await until_some_done(isolated_sql_url, ids, len(waves[0]) + 8)
        first.kill()  # mid-load: most of the second wave is still being processed
        before_kill = first.window_runs(), second.window_runs()
        done_at_kill = sum(s in ("done", "skipped") for s in (await job_states(isolated_sql_url, ids)).values())
        assert done_at_kill < len(waves[0]) + len(waves[1]), "the kill came after the second wave was processed"

        await publish(publisher, waves[2])
        states = await wait_finished(isolated_sql_url, ids, timeout=240)
        unfinished = [
            (t["turn_id"], states.get(t["turn_id"]), partition_for(turn_key(TENANT, t["user_id"]), PARTITIONS))
            for t in turns
            if states.get(t["turn_id"]) not in ("done", "skipped")
        ]
        assert not unfinished, (len(unfinished), unfinished[:20], owned_by_first)
        killed_at = first.killed_at or 0.0
        await until(
            lambda: users <= {r.user for r in second.window_runs() if r.end > killed_at},
            120,
            "every user's window after the kill to be maintained",
        )
        assert second.owned() == set(range(PARTITIONS))  # the survivor took the killed worker's partitions
    finally:
        for worker in (first, second):
            worker.stop()

    result = await outcome(isolated_sql_url, ids)
    assert (result.finished, result.lost, result.failed, result.duplicate_memories) == (len(ids), 0, 0, 0)
    assert await duplicate_episodes(isolated_sql_url) == 0

    runs = first.window_runs() + second.window_runs()
    per_window = Counter((r.user, r.start) for r in runs)
    assert max(per_window.values()) == 1, [key for key, n in per_window.items() if n > 1]
    assert {r.user for r in runs} == users  # every user maintained, nobody else
    # before the kill each worker maintained the users of its own partitions only...
    assert {r.partition for r in before_kill[0]} <= owned_by_first
    assert {r.partition for r in before_kill[1]} <= owned_by_second
    # ...and after it the survivor maintains the killed worker's users too
    assert owned_by_first <= {r.partition for r in second.window_runs() if r.end > killed_at}


async def until_some_done(url: str, ids: list[str], count: int, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while sum(s in ("done", "skipped") for s in (await job_states(url, ids)).values()) < count:
        if time.monotonic() > deadline:
            raise AssertionError(f"fewer than {count} turns processed after {timeout:.0f} s")
        await asyncio.sleep(0.1)

