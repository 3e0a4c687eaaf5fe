"""Reconcile on the SQL write path, both backends: confirm, supersede, coexist, and replays that change nothing."""

from __future__ import annotations

from beliefs.records import EventKind, JobState, MemoryState, Role, Trust, job_id_for
from beliefs.write_plan import TurnOutcome
from sinks.sql import SqlMemoryStore
from sinks.sql.tables import memories, outbox
from tests.conftest import unique_tenant
from tests.sinks.store_builders import active_values, count, done, mem, said, turn


async def test_the_same_value_again_confirms_instead_of_duplicating(store: SqlMemoryStore) -> None:
    tenant = unique_tenant()
    first, again = said(tenant, "morning"), said(tenant, "Morning.", importance=0.9)

    await store.write([first])
    result = await store.write([again])

    original = first.memories[0]
    assert result.inserted == []
    [changed] = result.changed
    assert changed.id == original.id
    assert changed.source_turn_ids == [first.turn.turn_id, again.turn.turn_id]
    assert changed.last_confirmed == again.turn.ts
    assert changed.importance == 0.9
    assert [(e.kind, e.memory_id) for e in result.events] == [(EventKind.CONFIRMED, original.id)]
    assert result.jobs[0].memory_ids == [original.id]
    assert await store.get_memory(tenant, original.id) == changed
    assert await active_values(store, tenant) == ["morning"]
    assert await store.get_memory(tenant, again.memories[0].id) is None


async def test_a_new_value_supersedes_the_old_one(store: SqlMemoryStore) -> None:
    tenant = unique_tenant()
    first, second = said(tenant, "morning"), said(tenant, "afternoon", importance=1.0)
    old, new = first.memories[0], second.memories[0]

    await store.write([first])
    result = await store.write([second])

    closed = await store.get_memory(tenant, old.id)
    assert closed.valid_until == new.valid_from
    assert closed.superseded_by == new.id
    assert closed.state is MemoryState.SUPERSEDED
    assert result.changed == [closed]
    assert result.inserted == [new]
    assert [(e.kind, e.memory_id, e.superseded_by) for e in result.events] == [
        (EventKind.CREATED, new.id, None),
        (EventKind.SUPERSEDED, old.id, new.id),
    ]
    assert await active_values(store, tenant) == ["afternoon"]


async def test_multi_valued_attributes_accumulate(store: SqlMemoryStore) -> None:
    tenant = unique_tenant()
    outcomes = []
    for value in ("peanuts", "shellfish", "Peanuts"):
        t = turn(tenant)
        outcomes.append(
            done(t, mem(t, text=f"Allergic to {value}", entity="user", attribute="allergy", value=value))
        )

    result = await store.write(outcomes)

    assert [e.kind for e in result.events] == [EventKind.CREATED, EventKind.CREATED, EventKind.CONFIRMED]
    assert await active_values(store, tenant) == ["peanuts", "shellfish"]


async def test_a_weak_claim_is_stored_alongside_without_superseding(store: SqlMemoryStore) -> None:
    tenant = unique_tenant()
    belief, hypothetical = said(tenant, "morning"), said(tenant, "evening", confidence=0.3)
    hearsay = said(tenant, "night", trust=Trust.UNTRUSTED, source_role=Role.ASSISTANT)

    await store.write([belief])
    result = await store.write([hypothetical, hearsay])

    assert result.changed == []
    assert len(result.inserted) == 2
    assert await active_values(store, tenant) == ["evening", "morning", "night"]
    assert (await store.get_memory(tenant, belief.memories[0].id)).is_current


async def test_context_scoped_values_coexist(store: SqlMemoryStore) -> None:
    tenant = unique_tenant()
    await store.write([said(tenant, "morning", context="consulting"), said(tenant, "afternoon")])
    await store.write([said(tenant, "evening", context="main job")])

    page, _ = await store.list_memories(tenant, "u1")
    assert sorted((m.context or "", m.value) for m in page) == [
        ("", "afternoon"),
        ("consulting", "morning"),
        ("main job", "evening"),
    ]


async def test_turns_of_one_batch_reconcile_in_order(store: SqlMemoryStore) -> None:
    tenant = unique_tenant()
    morning, afternoon, again = said(tenant, "morning"), said(tenant, "afternoon"), said(tenant, "afternoon")

    result = await store.write([morning, afternoon, again])

    assert [(m.value, m.state) for m in result.inserted] == [
        ("morning", MemoryState.SUPERSEDED),
        ("afternoon", MemoryState.ACTIVE),
    ]
    assert [e.kind for e in result.events] == [
        EventKind.CREATED,
        EventKind.CREATED,
        EventKind.SUPERSEDED,
        EventKind.CONFIRMED,
    ]
    assert result.changed == []  # nothing existed before the batch
    stored = await store.get_memory(tenant, afternoon.memories[0].id)
    assert stored.source_turn_ids == [afternoon.turn.turn_id, again.turn.turn_id]
    assert (await store.get_memory(tenant, morning.memories[0].id)).superseded_by == stored.id
    assert [job.memory_ids for job in result.jobs] == [[morning.memories[0].id], [stored.id], [stored.id]]


async def test_replaying_a_batch_changes_nothing(store: SqlMemoryStore) -> None:
    tenant = unique_tenant()
    skipped = TurnOutcome(turn(tenant), "", JobState.SKIPPED, "no_memory_extracted")
    skipped = TurnOutcome(
        skipped.turn, job_id_for(tenant, skipped.turn.turn_id), JobState.SKIPPED, skipped.reason
    )
    batch = [said(tenant, "morning"), said(tenant, "afternoon"), skipped]

    first = await store.write(batch)
    before = (
        await count(store, memories),
        await count(store, outbox),
        await store.list_memories(tenant, "u1", None),
    )
    replay = await store.write(batch)
    twice_in_one = await store.write([batch[0], batch[0]])

    assert replay.replayed_job_ids == [job.job_id for job in first.jobs]
    assert (replay.inserted, replay.changed, replay.events, replay.jobs) == ([], [], [], [])
    assert twice_in_one.replayed_job_ids == [batch[0].job_id] * 2
    assert (
        await count(store, memories),
        await count(store, outbox),
        await store.list_memories(tenant, "u1", None),
    ) == before
    assert await store.done_job_ids([o.job_id for o in batch] + ["unknown"]) == {o.job_id for o in batch}
    assert (await store.get_job(tenant, skipped.job_id)).reason == "no_memory_extracted"


async def test_a_memory_already_stored_is_not_written_again(store: SqlMemoryStore) -> None:
    tenant = unique_tenant()
    first = said(tenant, "morning")
    await store.write([first])
    other_turn = turn(tenant)

    result = await store.write([done(other_turn, first.memories[0])])

    assert (result.inserted, result.changed, result.events) == ([], [], [])
    assert result.jobs[0].memory_ids == [first.memories[0].id]


async def test_a_retraction_closes_the_belief_and_a_repeat_from_another_session_raises_importance(
    store: SqlMemoryStore,
) -> None:
    from beliefs.records import Polarity

    tenant = unique_tenant()
    first = said(tenant, "morning", source_session="s1", importance=0.6)
    again = said(tenant, "morning", source_session="s2", importance=0.5)
    await store.write([first, again])
    original = first.memories[0]
    assert (await store.get_memory(tenant, original.id)).importance == 0.8  # repeated across sessions

    retraction = said(tenant, "Morning", polarity=Polarity.NEGATIVE, text="User no longer prefers morning meetings")
    await store.write([retraction])
    closed = await store.get_memory(tenant, original.id)
    assert closed.state is MemoryState.SUPERSEDED and closed.superseded_by == retraction.memories[0].id
    [current] = (await store.list_memories(tenant, "u1"))[0]
    assert (current.value, current.polarity) == ("Morning", Polarity.NEGATIVE)
