"""Governance on the SQL store, both backends: direct insert, revocation, erasure."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

from beliefs.records import (
    EventKind,
    Job,
    JobState,
    Memory,
    MemoryState,
    job_id_for,
    memory_id_for,
)
from sinks.base import ErasureReport
from sinks.contracts import MemoryStore
from sinks.sql import SqlMemoryStore
from sinks.sql.tables import jobs, memories, memory_embeddings, outbox
from sinks.sql.vector_outbox import SqlVectorOutbox

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
VECTOR = [0.5, -0.25, 1.0]


def meeting(tenant: str, value: str, user: str = "u1", minute: int = 0, **fields) -> Memory:
    """A direct memory stating a (single-valued) meeting-time preference."""
    at = T0 + timedelta(minutes=minute)
    base = {
        "id": memory_id_for(tenant, f"direct:{user}", f"{value}/{minute}"),
        "tenant_id": tenant,
        "user_id": user,
        "text": f"User prefers {value} meetings",
        "type": "preference",
        "topic": "work",
        "importance": 0.5,
        "confidence": 0.9,
        "entity": "user",
        "attribute": "preferred_meeting_time",
        "value": value,
        "created_at": at,
        "valid_from": at,
    }
    return Memory(**(base | fields))


async def events(store: SqlMemoryStore, tenant: str) -> list[dict]:
    """The unpublished events of the tenant, oldest first, decoded."""
    async with store._engine.connect() as conn:
        rows = (await conn.execute(sa.select(outbox.c.value).order_by(outbox.c.seq))).scalars().all()
    decoded = [json.loads(bytes(value)) for value in rows]
    return [event for event in decoded if event["tenant_id"] == tenant]


async def vector_state(store: SqlMemoryStore, memory_id: str) -> tuple[bool, int]:
    async with store._engine.connect() as conn:
        row = (
            await conn.execute(
                sa.select(memories.c.vector_dirty, memories.c.vector_version).where(
                    memories.c.id == memory_id
                )
            )
        ).one()
    return bool(row.vector_dirty), row.vector_version


def test_the_store_still_satisfies_the_protocol() -> None:
    assert isinstance(SqlMemoryStore("sqlite+aiosqlite://"), MemoryStore)


# -- direct insert ---------------------------------------------------------------------------------


async def test_insert_memory_stores_it_with_an_event_and_no_job(store: SqlMemoryStore, tenant: str) -> None:
    memory = meeting(tenant, "morning")

    result = await store.insert_memory(memory, VECTOR)

    assert result.inserted == [memory]
    assert result.changed == [] and result.jobs == []
    assert await store.get_memory(tenant, memory.id) == memory
    assert [(e.kind, e.memory_id) for e in result.events] == [(EventKind.CREATED, memory.id)]
    [pending] = [p for p in await SqlVectorOutbox.of(store).pending_vectors() if p.memory.id == memory.id]
    assert pending.embedding == VECTOR
    async with store._engine.connect() as conn:
        count = await conn.scalar(
            sa.select(sa.func.count()).select_from(jobs).where(jobs.c.tenant_id == tenant)
        )
    assert count == 0


async def test_insert_memory_twice_changes_nothing_the_second_time(
    store: SqlMemoryStore, tenant: str
) -> None:
    memory = meeting(tenant, "morning")
    await store.insert_memory(memory, VECTOR)

    again = await store.insert_memory(memory, VECTOR)

    assert (again.inserted, again.changed, again.events) == ([], [], [])
    assert len(await events(store, tenant)) == 1


async def test_insert_memory_supersedes_a_different_value(store: SqlMemoryStore, tenant: str) -> None:
    old, new = meeting(tenant, "morning"), meeting(tenant, "afternoon", minute=5)
    await store.insert_memory(old, VECTOR)

    result = await store.insert_memory(new, VECTOR)

    closed = await store.get_memory(tenant, old.id)
    assert closed.state is MemoryState.SUPERSEDED and closed.superseded_by == new.id
    assert result.inserted == [new] and result.changed == [closed]
    assert [e.kind for e in result.events] == [EventKind.CREATED, EventKind.SUPERSEDED]
    assert (await vector_state(store, old.id))[0] is True  # the old point's payload must follow


async def test_insert_memory_confirms_the_same_value(store: SqlMemoryStore, tenant: str) -> None:
    first = meeting(tenant, "morning")
    again = meeting(tenant, "Morning.", minute=5, importance=0.9, source_turn_ids=["t-9"])
    await store.insert_memory(first, VECTOR)

    result = await store.insert_memory(again, VECTOR)

    assert result.inserted == []
    [confirmed] = result.changed
    assert confirmed.id == first.id and confirmed.importance == 0.9
    assert confirmed.source_turn_ids == ["t-9"]
    assert [(e.kind, e.memory_id, e.turn_id) for e in result.events] == [
        (EventKind.CONFIRMED, first.id, "t-9")
    ]
    assert await store.get_memory(tenant, again.id) is None


async def test_a_weak_direct_memory_never_overturns_a_belief(store: SqlMemoryStore, tenant: str) -> None:
    await store.insert_memory(meeting(tenant, "morning"), VECTOR)

    result = await store.insert_memory(meeting(tenant, "evening", minute=5, confidence=0.2), VECTOR)

    assert result.changed == []
    page, _ = await store.list_memories(tenant, "u1")
    assert sorted(m.value for m in page) == ["evening", "morning"]


# -- revocation ------------------------------------------------------------------------------------


async def test_revoke_closes_the_memory_and_writes_one_event(store: SqlMemoryStore, tenant: str) -> None:
    memory = meeting(tenant, "morning")
    await store.insert_memory(memory, VECTOR)
    await SqlVectorOutbox.of(store).mark_vectors_synced([memory.id])
    at = T0 + timedelta(days=2)

    revoked = await store.revoke(tenant, memory.id, at)

    assert revoked.state is MemoryState.REVOKED
    assert revoked.revoked_at == at and revoked.valid_until == at
    assert not revoked.is_current
    assert await store.get_memory(tenant, memory.id) == revoked
    assert await vector_state(store, memory.id) == (True, 2)
    [created, event] = await events(store, tenant)
    assert (event["kind"], event["memory_id"], event["user_id"]) == ("revoked", memory.id, "u1")
    assert created["kind"] == "created"
    page, _ = await store.list_memories(tenant, "u1")
    assert page == []


async def test_revoke_is_idempotent(store: SqlMemoryStore, tenant: str) -> None:
    memory = meeting(tenant, "morning")
    await store.insert_memory(memory, VECTOR)
    first = await store.revoke(tenant, memory.id, T0 + timedelta(days=1))

    second = await store.revoke(tenant, memory.id, T0 + timedelta(days=2))

    assert second == first
    assert [e["kind"] for e in await events(store, tenant)] == ["created", "revoked"]


async def test_concurrent_revokes_write_one_event(store: SqlMemoryStore, tenant: str) -> None:
    memory = meeting(tenant, "morning")
    await store.insert_memory(memory, VECTOR)

    results = await asyncio.gather(
        *(store.revoke(tenant, memory.id, T0 + timedelta(days=i)) for i in range(4))
    )

    assert len({r.revoked_at for r in results}) == 1
    assert [e["kind"] for e in await events(store, tenant)] == ["created", "revoked"]


async def test_revoke_keeps_the_end_of_a_superseded_memory(store: SqlMemoryStore, tenant: str) -> None:
    old, new = meeting(tenant, "morning"), meeting(tenant, "afternoon", minute=5)
    await store.insert_memory(old, VECTOR)
    await store.insert_memory(new, VECTOR)

    revoked = await store.revoke(tenant, old.id, T0 + timedelta(days=3))

    assert revoked.state is MemoryState.REVOKED
    assert revoked.valid_until == new.valid_from  # when the belief ended does not move
    assert revoked.superseded_by == new.id


async def test_revoke_is_scoped_by_tenant(store: SqlMemoryStore, tenant: str) -> None:
    memory = meeting(tenant, "morning")
    await store.insert_memory(memory, VECTOR)

    assert await store.revoke(f"{tenant}-other", memory.id, T0) is None
    assert await store.revoke(tenant, "no-such-memory", T0) is None
    assert (await store.get_memory(tenant, memory.id)).state is MemoryState.ACTIVE


async def test_a_revoked_memory_is_not_confirmed_by_a_new_claim(store: SqlMemoryStore, tenant: str) -> None:
    memory = meeting(tenant, "morning")
    await store.insert_memory(memory, VECTOR)
    await store.revoke(tenant, memory.id, T0 + timedelta(days=1))

    result = await store.insert_memory(meeting(tenant, "morning", minute=9), VECTOR)

    assert [m.value for m in result.inserted] == ["morning"]  # a fresh claim, not a resurrection
    assert (await store.get_memory(tenant, memory.id)).state is MemoryState.REVOKED


# -- erasure ---------------------------------------------------------------------------------------


def queued(tenant: str, user: str, turn_id: str) -> Job:
    return Job(
        job_id=job_id_for(tenant, turn_id),
        tenant_id=tenant,
        user_id=user,
        turn_id=turn_id,
        state=JobState.QUEUED,
        created_at=T0,
        updated_at=T0,
    )


async def test_erase_user_deletes_memories_jobs_and_events(store: SqlMemoryStore, tenant: str) -> None:
    mine = [meeting(tenant, "morning"), meeting(tenant, "afternoon", minute=5)]
    theirs = meeting(tenant, "evening", user="u2")
    elsewhere = meeting(f"{tenant}-other", "morning")
    for memory in [*mine, theirs, elsewhere]:
        await store.insert_memory(memory, VECTOR)
    await store.enqueue_jobs(
        [queued(tenant, "u1", "t-1"), queued(tenant, "u1", "t-2"), queued(tenant, "u2", "t-3")]
    )

    report = await store.erase_user(tenant, "u1")

    assert isinstance(report, ErasureReport)
    assert sorted(report.memory_ids) == sorted(m.id for m in mine)
    assert report.job_count == 2
    for memory in mine:
        assert await store.get_memory(tenant, memory.id) is None
        assert await store.memory_history(tenant, memory.id) == []
    assert await store.list_memories(tenant, "u1", state=None) == ([], None)
    assert await store.get_job(tenant, job_id_for(tenant, "t-1")) is None
    assert {e["user_id"] for e in await events(store, tenant)} == {"u2"}
    assert await store.get_memory(tenant, theirs.id) == theirs
    assert await store.get_job(tenant, job_id_for(tenant, "t-3")) is not None
    assert await store.get_memory(f"{tenant}-other", elsewhere.id) == elsewhere
    assert not {p.memory.id for p in await SqlVectorOutbox.of(store).pending_vectors(limit=100_000)} & set(report.memory_ids)
    async with store._engine.connect() as conn:
        kept = set((await conn.scalars(sa.select(memory_embeddings.c.memory_id))).all())
    assert not kept & set(report.memory_ids)  # the embeddings go with the rows
    assert theirs.id in kept


async def test_erasing_an_unknown_user_is_an_empty_report(store: SqlMemoryStore, tenant: str) -> None:
    report = await store.erase_user(tenant, "nobody")
    assert (report.memory_ids, report.job_count) == ([], 0)
    assert set(report.counts.values()) == {0} and report.receipt_id  # a receipt even for nothing
