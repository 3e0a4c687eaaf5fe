"""The SQL store on real databases: SQLite and PostgreSQL (the `sql_url` fixture)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta, timezone

import pytest

from beliefs.records import (
    Job,
    JobState,
    MemoryEvent,
    MemoryState,
    RecallSemantics,
    Role,
    Trust,
    Visibility,
    job_id_for,
)
from beliefs.write_plan import TurnOutcome
from sinks.contracts import MemoryStore
from sinks.errors import SinkUnavailableError
from sinks.sql import InvalidCursorError, InvalidOutcomeError, InvalidRequestError, SqlMemoryStore
from sinks.sql.vector_outbox import SqlVectorOutbox
from tests.conftest import unique_tenant
from tests.sinks.store_builders import EVENTS, T0, active_values, done, mem, said, turn


def test_is_a_memory_store() -> None:
    assert isinstance(SqlMemoryStore("sqlite+aiosqlite://"), MemoryStore)


async def test_every_field_round_trips(store: SqlMemoryStore) -> None:
    tenant = unique_tenant()
    t = turn(tenant)
    plus_two = timezone(timedelta(hours=2))
    memory = mem(
        t,
        agent_id="agent-7",
        visibility=Visibility.AGENT,
        text="Ne me recommande pas de restaurants de sushi — « jamais ».",
        type="procedure",
        topic="personal",
        importance=0.123456789,
        confidence=0.987654321,
        entity="user",
        attribute="dislikes",
        value="sushi",
        context="travel",
        recall_semantics=RecallSemantics.CONSTRAINT,
        trigger={"action": "recommend", "domain": "restaurant"},
        profile=True,
        source_role=Role.ASSISTANT,
        source_session="s-9",
        source_turn_ids=[t.turn_id, "t-earlier", "t-é"],
        evidence="pas de sushi",
        trust=Trust.CAUTION,
        created_at=datetime(2026, 3, 1, 11, 0, 0, 123456, tzinfo=plus_two),
        valid_from=datetime(2026, 2, 1, 0, 0, tzinfo=UTC),
        expires_at=datetime(2027, 1, 1, 12, 30, tzinfo=plus_two),
        last_confirmed=T0,
        last_accessed=T0 + timedelta(hours=1),
        access_count=3,
        decay_score=0.75,
        half_life_days=12.5,
    )
    embedding = [0.5, -1.25, 3.0, 0.1]

    await store.write([done(t, memory, embeddings=[embedding])])
    stored = await store.get_memory(tenant, memory.id)

    assert stored == memory
    assert stored.created_at.tzinfo == UTC and stored.expires_at.tzinfo == UTC
    assert stored.created_at.microsecond == 123456
    [pending] = [p for p in await SqlVectorOutbox.of(store).pending_vectors() if p.memory.id == memory.id]
    assert pending.memory == memory
    assert pending.embedding[:3] == [0.5, -1.25, 3.0]
    assert pending.embedding[3] == pytest.approx(0.1, rel=1e-7)


async def test_outbox_holds_events_until_acked(store: SqlMemoryStore) -> None:
    tenant = unique_tenant()
    result = await store.write([said(tenant, "morning"), said(tenant, "afternoon")])

    pending = [e for e in await store.pending_events() if e.key == f"{tenant}:u1"]
    assert [e.topic for e in pending] == [EVENTS] * 3
    assert [MemoryEvent.model_validate_json(e.value) for e in pending] == result.events
    assert [e.seq for e in pending] == sorted(e.seq for e in pending)

    await store.ack_events([e.seq for e in pending])
    assert not [e for e in await store.pending_events() if e.key == f"{tenant}:u1"]


async def test_vector_dirty_lifecycle(store: SqlMemoryStore) -> None:
    tenant = unique_tenant()
    first = said(tenant, "morning")
    t = turn(tenant)
    no_vector = done(t, mem(t, text="no embedding"), embeddings=[])
    await store.write([first, no_vector])
    memory_id = first.memories[0].id

    def mine(pending):
        return [p.memory.id for p in pending if p.memory.tenant_id == tenant]

    assert mine(await SqlVectorOutbox.of(store).pending_vectors()) == [memory_id]
    await SqlVectorOutbox.of(store).mark_vectors_synced([memory_id])
    assert mine(await SqlVectorOutbox.of(store).pending_vectors()) == []

    await store.write([said(tenant, "morning", confidence=0.95)])  # confirm: payload changed
    assert mine(await SqlVectorOutbox.of(store).pending_vectors()) == [memory_id]
    await store.write([said(tenant, "afternoon")])  # changed again after it was handed out
    await SqlVectorOutbox.of(store).mark_vectors_synced([memory_id])
    pending = [p for p in await SqlVectorOutbox.of(store).pending_vectors() if p.memory.id == memory_id]
    assert [p.memory.state for p in pending] == [MemoryState.SUPERSEDED]


async def test_list_memories_pages_with_a_cursor(store: SqlMemoryStore) -> None:
    tenant = unique_tenant()
    outcomes = []
    for n in range(7):
        t = turn(tenant, minute=n // 2)  # pairs share created_at: the id breaks the tie
        outcomes.append(done(t, mem(t, text=f"fact {n}")))
    await store.write(outcomes)

    seen, cursor, pages = [], None, 0
    while True:
        page, cursor = await store.list_memories(tenant, "u1", limit=3, cursor=cursor)
        seen += page
        pages += 1
        if cursor is None:
            break
    assert pages == 3
    assert len(seen) == 7
    assert [(m.created_at, m.id) for m in seen] == sorted((m.created_at, m.id) for m in seen)
    with pytest.raises(InvalidCursorError):
        await store.list_memories(tenant, "u1", cursor="not-a-cursor")
    with pytest.raises(InvalidRequestError):
        await store.list_memories(tenant, "u1", limit=0)


async def test_list_memories_filters_by_state(store: SqlMemoryStore) -> None:
    tenant = unique_tenant()
    await store.write([said(tenant, "morning"), said(tenant, "afternoon")])

    superseded, _ = await store.list_memories(tenant, "u1", MemoryState.SUPERSEDED)
    everything, _ = await store.list_memories(tenant, "u1", None)
    assert [m.value for m in superseded] == ["morning"]
    assert [m.value for m in everything] == ["morning", "afternoon"]


async def test_another_tenant_never_sees_rows(store: SqlMemoryStore) -> None:
    tenant, intruder = unique_tenant(), unique_tenant()
    first = said(tenant, "morning")
    await store.write([first])
    memory_id = first.memories[0].id

    assert await store.list_memories(intruder, "u1", None) == ([], None)
    assert await store.get_memory(intruder, memory_id) is None
    assert await store.memory_history(intruder, memory_id) == []
    assert await store.get_job(intruder, first.job_id) is None
    assert await store.get_job(tenant, first.job_id) is not None


async def test_tenants_and_users_do_not_reconcile_across_each_other(store: SqlMemoryStore) -> None:
    tenant, other = unique_tenant(), unique_tenant()
    await store.write([said(tenant, "morning"), said(tenant, "morning", user="u2")])
    await store.write([said(other, "afternoon"), said(tenant, "evening", user="u2")])

    assert await active_values(store, tenant) == ["morning"]
    assert await active_values(store, tenant, "u2") == ["evening"]
    assert await active_values(store, other) == ["afternoon"]


async def test_memory_history_follows_the_chain_both_ways(store: SqlMemoryStore) -> None:
    tenant = unique_tenant()
    chain = [said(tenant, value) for value in ("morning", "afternoon", "evening")]
    await store.write(chain[:2])
    await store.write(chain[2:])
    ids = [o.memories[0].id for o in chain]

    for memory_id in ids:
        history = await store.memory_history(tenant, memory_id)
        assert [m.id for m in history] == ids
    assert [m.state for m in history] == [MemoryState.SUPERSEDED, MemoryState.SUPERSEDED, MemoryState.ACTIVE]
    assert await store.memory_history(tenant, "no-such-memory") == []


async def test_enqueue_jobs_never_downgrades_a_finished_job(store: SqlMemoryStore) -> None:
    tenant = unique_tenant()
    finished, later = said(tenant, "morning"), said(tenant, "afternoon")
    await store.write([finished])

    queued = [
        Job(
            job_id=o.job_id,
            tenant_id=tenant,
            user_id="u1",
            turn_id=o.turn.turn_id,
            state=JobState.QUEUED,
            created_at=T0,
            updated_at=T0,
        )
        for o in (finished, later)
    ]
    await store.enqueue_jobs(queued)
    await store.enqueue_jobs(queued)

    assert (await store.get_job(tenant, finished.job_id)).state is JobState.DONE
    assert (await store.get_job(tenant, later.job_id)).state is JobState.QUEUED
    assert later.job_id not in await store.done_job_ids([later.job_id])

    result = await store.write([later])
    job = await store.get_job(tenant, later.job_id)
    assert job == result.jobs[0]
    assert (job.state, job.memory_ids, job.created_at) == (JobState.DONE, [later.memories[0].id], T0)


async def test_outcomes_that_contradict_themselves_are_rejected(store: SqlMemoryStore) -> None:
    tenant = unique_tenant()
    t = turn(tenant)
    with pytest.raises(InvalidOutcomeError):
        await store.write([done(t, mem(t, user_id="someone-else"))])
    with pytest.raises(InvalidOutcomeError):
        await store.write([done(t, mem(t), embeddings=[[1.0], [2.0]])])
    with pytest.raises(InvalidOutcomeError):
        await store.write([TurnOutcome(t, job_id_for(tenant, t.turn_id), JobState.SKIPPED, "x", [mem(t)])])
    assert await store.get_job(tenant, job_id_for(tenant, t.turn_id)) is None


async def test_ping(store: SqlMemoryStore) -> None:
    assert await store.ping() is True


async def test_an_unreachable_postgres_is_unavailable() -> None:
    store = SqlMemoryStore("postgresql+asyncpg://postgres@127.0.0.1:1/nothing")
    try:
        assert await store.ping() is False
        with pytest.raises(SinkUnavailableError):
            await store.setup()
        with pytest.raises(SinkUnavailableError):
            await store.write([said(unique_tenant(), "morning")])
        with pytest.raises(SinkUnavailableError):
            await store.get_memory("t", "m")
        with pytest.raises(SinkUnavailableError):
            await store.pending_events()
    finally:
        await store.close()


async def test_concurrent_writers_both_commit(store: SqlMemoryStore, sql_url: str) -> None:
    """SQLite writers take the lock at BEGIN and wait for each other instead of failing."""
    tenant = unique_tenant()
    other = SqlMemoryStore(sql_url, events_topic=EVENTS)
    try:
        batches = [[said(tenant, "morning", user=f"u{i}-{n}") for n in range(20)] for i in range(4)]
        writers = [(store if i % 2 else other).write(batch) for i, batch in enumerate(batches)]
        results = await asyncio.gather(*writers)
    finally:
        await other.close()
    assert sum(len(r.inserted) for r in results) == 80
