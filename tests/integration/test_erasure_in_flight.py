"""Erasure overtakes the broker, end to end on a real Tansu broker and both databases: turns of a user
still on the turns topic when the user is erased are never processed; the user's next turn is."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from integration.harness import publish, read_topic, running_worker, sinks_drained, wait_for
from prometheus_client import REGISTRY

from beliefs.records import JobState, job_id_for
from sinks.base import VectorFilter
from sinks.sql.store import SqlMemoryStore
from sinks.sql.tables import episodes, intake, jobs, memories, outbox

pytestmark = pytest.mark.integration

DROPPED = "beliefstream_turns_dropped_for_erasure_total"


def turn(tenant: str, turn_id: str, user: str, text: str) -> dict:
    return {"turn_id": turn_id, "tenant_id": tenant, "user_id": user, "role": "user", "text": text,
            "ts": "2026-11-21T10:00:00Z"}


def dropped() -> float:
    return REGISTRY.get_sample_value(DROPPED) or 0.0


async def rows_of(store: SqlMemoryStore, tenant: str, user: str) -> dict[str, int]:
    """Every SQL row that names the user, by table (the erasure receipt keeps a digest only)."""
    found = {}
    async with store._engine.connect() as conn:
        for table in (memories, episodes, jobs, intake):
            mine = sa.select(sa.func.count()).where(table.c.tenant_id == tenant, table.c.user_id == user)
            found[table.name] = (await conn.execute(mine)).scalar_one()
        events = sa.select(sa.func.count()).where(outbox.c.key == f"{tenant}:{user}")
        found["outbox"] = (await conn.execute(events)).scalar_one()
    return {name: n for name, n in found.items() if n}


async def test_turns_in_the_broker_when_their_user_is_erased_are_never_processed(settings, tenant):
    in_flight = [
        turn(tenant, "t-1", "gone", "I am allergic to shellfish."),
        turn(tenant, "t-2", "gone", "I live in Reykjavik."),
        turn(tenant, "t-3", "gone", "I prefer morning meetings."),
    ]
    others = [turn(tenant, "t-4", "stays", "I work at Globex as a designer.")]
    await publish(settings, in_flight + others)  # on the topic; no worker has read them

    eraser = SqlMemoryStore(settings.resolved_sql_url)  # the sidecar's side: its own store
    await eraser.setup()
    try:
        receipt = await eraser.erase_user(tenant, "gone")
    finally:
        await eraser.close()
    assert receipt.receipt_id and receipt.counts["memories"] == 0

    before = dropped()
    async with running_worker(settings) as worker:
        store, vectors = worker.clients.store, worker.clients.vectors
        await wait_for(lambda: _finished(store, tenant, others), what="the other user's turn")
        await wait_for(lambda: _at_least(before + len(in_flight)), what="the erased user's turns to be dropped")

        back = turn(tenant, "t-5", "gone", "I use a standing desk at home.")  # the user comes back
        await publish(settings, [back])
        await wait_for(lambda: _finished(store, tenant, [back]), what="the returning user's turn")
        await wait_for(lambda: sinks_drained(store), what="vectors and events")

        memories_, _ = await store.list_memories(tenant, "gone", state=None)
        assert memories_ and {m.source_turn_ids[0] for m in memories_} == {"t-5"}
        assert all("shellfish" not in m.text.lower() and "reykjavik" not in m.text.lower() for m in memories_)
        for t in in_flight:
            assert await store.get_job(tenant, job_id_for(tenant, t["turn_id"])) is None
        rows = await rows_of(store, tenant, "gone")
        assert rows["jobs"] == 1 and rows["memories"] == len(memories_) and rows.get("episodes", 0) <= 1
        [query] = await worker.clients.embedder.aembed(["shellfish allergy Reykjavik morning meetings"])
        hits = await vectors.search(query.tolist(), VectorFilter(tenant_id=tenant, user_id="gone"), 20)
        assert {hit.id for hit in hits} <= {m.id for m in memories_} | await _episode_ids(store, tenant, "gone")
        assert (await store.list_memories(tenant, "stays"))[0]  # the other user was processed as usual
        assert dropped() - before == len(in_flight)

    dead = await read_topic(settings, settings.dlq_topic, expect=1, timeout=3)
    assert not [value for _, value in dead if b"gone" in value]  # nothing of the erased turns lands there


async def _finished(store: SqlMemoryStore, tenant: str, turns: list[dict]) -> bool:
    for t in turns:
        job = await store.get_job(tenant, job_id_for(tenant, t["turn_id"]))
        if job is None or job.state is JobState.QUEUED:
            return False
    return True


async def _at_least(value: float) -> bool:
    return dropped() >= value


async def _episode_ids(store: SqlMemoryStore, tenant: str, user: str) -> set[str]:
    async with store._engine.connect() as conn:
        mine = sa.select(episodes.c.id).where(episodes.c.tenant_id == tenant, episodes.c.user_id == user)
        return set((await conn.scalars(mine)).all())
