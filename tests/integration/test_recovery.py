"""Nothing is lost and nothing doubles: a sink outage is waited out, a crash mid-batch replays cleanly."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence

import pytest
from integration.harness import publish, read_topic, running_worker, wait_for

from beliefs.records import JobState, MemoryState, job_id_for
from sinks.base import VectorPoint
from sinks.errors import SinkUnavailableError
from sinks.sql.vector_outbox import SqlVectorOutbox

pytestmark = pytest.mark.integration

TEXTS = [
    "I work at Globex as a data engineer.",
    "I'm allergic to shellfish.",
    "I live in Oslo.",
    "I prefer afternoon meetings.",
    "My name is Dana.",
]


def story(tenant: str) -> list[dict]:
    return [
        {
            "turn_id": f"r-{i}",
            "tenant_id": tenant,
            "user_id": "u-7",
            "role": "user",
            "text": text,
            "ts": "2026-11-01T10:00:00Z",
        }
        for i, text in enumerate(TEXTS)
    ]


class FlakyVectors:
    """The real index behind a fault: `fail` more writes raise the given error first."""

    def __init__(self, inner, fail: int, error: Exception) -> None:
        self.inner, self.fail, self.error, self.attempts = inner, fail, error, 0

    async def write(self, points: Sequence[VectorPoint]) -> None:
        self.attempts += 1
        if self.fail > 0:
            self.fail -= 1
            raise self.error
        await self.inner.write(points)

    def __getattr__(self, name: str):
        return getattr(self.inner, name)


async def all_done(store, turns: list[dict]) -> bool:
    for t in turns:
        job = await store.get_job(t["tenant_id"], job_id_for(t["tenant_id"], t["turn_id"]))
        if job is None or job.state is JobState.QUEUED:
            return False
    return True


async def test_a_vector_outage_is_retried_until_it_clears(settings, tenant):
    turns = story(tenant)
    flaky: dict[str, FlakyVectors] = {}

    def wrap(clients):  # the projector is the one writer of the index
        flaky["index"] = FlakyVectors(clients.projector.vectors, 3, SinkUnavailableError("qdrant is down"))
        clients.projector.vectors = flaky["index"]
        return clients

    async with running_worker(settings, wrap) as worker:
        await publish(settings, turns)
        store = worker.clients.store
        await wait_for(lambda: all_done(store, turns), what="jobs")

        async def vectors_caught_up() -> bool:
            # the points are written, then the SQL outbox flag is cleared: wait for both
            active, _ = await store.list_memories(tenant, "u-7", state=MemoryState.ACTIVE)
            episodes, _ = await store.list_episodes(tenant, "u-7")
            points = await flaky["index"].inner.count(tenant)
            indexed = points == len(active) + len(episodes) and len(active) >= len(turns) == len(episodes)
            return indexed and await SqlVectorOutbox.of(store).pending_vectors() == [] and await SqlVectorOutbox.of(store).pending_episode_vectors() == []

        await wait_for(vectors_caught_up, what="the vector index to catch up after the outage")
        assert flaky["index"].attempts >= 4  # three failures, then success


async def test_a_crash_after_the_sql_commit_replays_without_duplicates(settings, tenant):
    turns = story(tenant)

    def crashing(clients):
        clients.projector.vectors = FlakyVectors(clients.projector.vectors, 10**6, RuntimeError("worker died"))
        return clients

    # first worker: SQL commits (rows and vector outbox), then the process "dies" before projecting
    async with running_worker(settings, crashing) as first:
        await publish(settings, turns)
        await wait_for(lambda: all_done(first.clients.store, turns), what="the SQL commit before the crash")
        committed, _ = await first.clients.store.list_memories(tenant, "u-7", state=None)
        kept, _ = await first.clients.store.list_episodes(tenant, "u-7", state=None)
        assert len(await SqlVectorOutbox.of(first.clients.store).pending_vectors()) == len(committed)
        assert len(await SqlVectorOutbox.of(first.clients.store).pending_episode_vectors()) == len(kept) == len(turns)

    # second worker, same consumer group: the uncommitted batch is delivered again
    async with running_worker(settings) as second:
        store = second.clients.store

        async def recovered() -> bool:
            return await second.clients.vectors.count(tenant) == len(committed) + len(kept)

        await wait_for(recovered, what="vectors restored from the SQL outbox")
        marker = {**turns[0], "turn_id": "after-crash", "text": "I drive a blue bicycle."}
        await publish(settings, [marker])

        async def marker_done() -> bool:
            return await all_done(store, [marker])

        await wait_for(marker_done, what="a turn after the replay")
        after, _ = await store.list_memories(tenant, "u-7", state=None)
        replayed = [m for m in after if m.source_turn_ids != ["after-crash"]]
        assert sorted(m.id for m in replayed) == sorted(m.id for m in committed)  # nothing doubled
        episodes_after, _ = await store.list_episodes(tenant, "u-7", state=None)
        assert {e.id for e in kept} < {e.id for e in episodes_after} and len(episodes_after) == len(kept) + 1

        async def outbox_empty() -> bool:  # the marker's points are written after its SQL commit
            return await SqlVectorOutbox.of(store).pending_vectors() == [] and await SqlVectorOutbox.of(store).pending_episode_vectors() == []

        await wait_for(outbox_empty, what="the vector outbox to drain")

    expect = len(after) + len(episodes_after)
    events = [json.loads(v) for _, v in await read_topic(settings, settings.events_topic, expect=expect)]
    created = [e["memory_id"] for e in events if e["kind"] == "created"]
    assert sorted(created) == sorted(m.id for m in after)  # each event exactly once, none lost
    kept_as_said = [e["episode_id"] for e in events if e["kind"] == "episode_created"]
    assert sorted(kept_as_said) == sorted(e.id for e in episodes_after)


class DownStore:
    """The real store whose writes fail as if the database were unreachable."""

    def __init__(self, inner) -> None:
        self.inner, self.attempts = inner, 0

    async def write(self, outcomes):
        self.attempts += 1
        raise SinkUnavailableError("the database is unreachable")

    def __getattr__(self, name: str):
        return getattr(self.inner, name)


async def test_stopping_during_a_database_outage_loses_nothing(settings, tenant):
    turns = story(tenant)
    down: dict[str, DownStore] = {}

    def wrap(clients):
        down["store"] = DownStore(clients.store)
        return dataclasses.replace(clients, store=down["store"])

    async with running_worker(settings, wrap):
        await publish(settings, turns)

        async def retrying() -> bool:
            return down["store"].attempts >= 2

        await wait_for(retrying, what="the worker to retry the write")
    # stopped while the batch was unwritten: it must not have been acknowledged

    async with running_worker(settings) as second:
        await wait_for(lambda: all_done(second.clients.store, turns), what="the batch, delivered again")
        memories, _ = await second.clients.store.list_memories(tenant, "u-7", state=MemoryState.ACTIVE)
        assert len(memories) >= len(turns)
