"""Contradiction loops in the SQL store: detection on the write path, escalation, resolution."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

from beliefs.loops import contested_id
from beliefs.records import JobState, Memory, MemoryState, Role, Turn, job_id_for, memory_id_for
from beliefs.write_plan import TurnOutcome
from sinks.sql import InvalidRequestError, SqlMemoryStore
from sinks.sql.errors import ContestedResolvedError
from sinks.sql.tables import outbox
from tests.sinks.store_builders import ESCALATIONS

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
_turns = itertools.count(1)


def claim(tenant: str, day: float, value: str, context: str | None = None, user: str = "u1", **fields) -> TurnOutcome:
    n = next(_turns)
    turn = Turn(turn_id=f"t{n}", tenant_id=tenant, user_id=user, role=Role.USER, text=value, ts=T0 + timedelta(days=day))
    memory = Memory(
        id=memory_id_for(tenant, turn.turn_id, "0"),
        tenant_id=tenant,
        user_id=user,
        text=f"User prefers {value} meetings" + (f" for {context}." if context else "."),
        type="preference",
        topic="work",
        importance=0.6,
        confidence=fields.pop("confidence", 0.9),
        entity="user",
        attribute="preferred_meeting_time",
        value=value,
        context=context,
        source_turn_ids=[turn.turn_id],
        created_at=turn.ts,
        valid_from=turn.ts,
        **fields,
    )
    return TurnOutcome(turn=turn, job_id=job_id_for(tenant, turn.turn_id), state=JobState.DONE, memories=[memory])


async def escalations(store: SqlMemoryStore, tenant: str) -> list[dict]:
    async with store._engine.connect() as conn:
        rows = (await conn.execute(sa.select(outbox.c.value).where(outbox.c.topic == ESCALATIONS))).all()
    found = [json.loads(bytes(r.value)) for r in rows]
    return [e for e in found if e["tenant_id"] == tenant]


async def active_meeting(store: SqlMemoryStore, tenant: str, user: str = "u1") -> list[Memory]:
    memories, _ = await store.list_memories(tenant, user, state=MemoryState.ACTIVE)
    return [m for m in memories if m.attribute == "preferred_meeting_time"]


async def oscillate(store: SqlMemoryStore, tenant: str, one_batch: bool = False) -> list[TurnOutcome]:
    story = [
        claim(tenant, 0, "morning"),
        claim(tenant, 3, "afternoon"),
        claim(tenant, 7, "morning"),
        claim(tenant, 12, "afternoon", context="main"),
    ]
    if one_batch:
        await store.write(story)
    else:
        for outcome in story:
            await store.write([outcome])
    return story


@pytest.mark.parametrize("one_batch", [False, True], ids=["turn by turn", "one batch"])
async def test_the_third_supersession_in_the_window_contests_the_pair(store, tenant, one_batch):
    story = await oscillate(store, tenant, one_batch)

    assert await active_meeting(store, tenant) == []
    slots = await store.list_contested(tenant, "u1")
    assert [s.id for s in slots] == [contested_id((tenant, "u1", "user", "preferred_meeting_time"))]
    history = slots[0].value_history
    assert [(e["value"], e["context"]) for e in history] == [
        ("morning", None), ("afternoon", None), ("morning", None), ("afternoon", "main")
    ]
    contested, _ = await store.list_memories(tenant, "u1", state=MemoryState.CONTESTED)
    assert {m.id for m in contested} == {story[2].memories[0].id, story[3].memories[0].id}
    (event,) = await escalations(store, tenant)
    assert event["kind"] == "input_required" and event["contested_id"] == slots[0].id
    assert [e["value"] for e in event["value_history"]] == ["morning", "afternoon", "morning", "afternoon"]


async def test_supersessions_outside_the_window_are_no_loop(store, tenant):
    for day, value in ((0, "morning"), (20, "afternoon"), (40, "morning"), (60, "afternoon")):
        await store.write([claim(tenant, day, value)])
    (current,) = await active_meeting(store, tenant)
    assert current.value == "afternoon"
    assert await store.list_contested(tenant) == []
    assert await escalations(store, tenant) == []


async def test_a_claim_on_an_open_slot_is_stored_contested_and_appended(store, tenant):
    await oscillate(store, tenant)
    late = claim(tenant, 13, "evening")
    weak = claim(tenant, 14, "noon", confidence=0.2)
    await store.write([late])
    await store.write([weak])

    assert await active_meeting(store, tenant) == []
    (slot,) = await store.list_contested(tenant)
    assert [e["value"] for e in slot.value_history][-2:] == ["evening", "noon"]
    assert len(await escalations(store, tenant)) == 1  # escalated once, when the loop opened


async def test_other_users_and_pairs_are_untouched(store, tenant):
    await oscillate(store, tenant)
    await store.write([claim(tenant, 13, "morning", user="u2")])
    (other,) = await active_meeting(store, tenant, "u2")
    assert other.value == "morning"
    assert await store.list_contested(tenant, "u2") == []
    assert await store.list_contested("another-tenant") == []


async def test_resolving_by_context_writes_meta_memories_and_closes_the_loop(store, tenant):
    story = await oscillate(store, tenant)
    (slot,) = await store.list_contested(tenant)
    at = T0 + timedelta(days=13)

    resolved, result = await store.resolve_contested(
        tenant, slot.id, by_context={"consulting": "morning"}, default="afternoon", at=at, resolved_by="u1"
    )

    assert resolved.status == "resolved" and resolved.resolved_at == at
    assert resolved.resolution["by_context"] == {"consulting": "morning"}
    assert resolved.resolution["default"] == "afternoon"
    metas = {m.context: m for m in await active_meeting(store, tenant)}
    assert set(metas) == {None, "consulting"}
    assert (metas[None].value, metas["consulting"].value) == ("afternoon", "morning")
    for meta in metas.values():
        assert (meta.importance, meta.confidence, meta.trust.value) == (0.95, 0.95, "trusted")
        assert set(meta.source_turn_ids) >= {story[2].turn.turn_id, story[3].turn.turn_id}
        assert meta.evidence.startswith("resolved by u1 at ")
    assert metas["consulting"].text == "User prefers morning meetings for consulting."
    assert metas[None].text == "User prefers afternoon meetings (default)."
    for memory in result.changed:
        assert memory.state is MemoryState.SUPERSEDED and memory.superseded_by == metas[None].id
    assert await store.list_contested(tenant) == []
    assert [s.id for s in await store.list_contested(tenant, status="resolved")] == [slot.id]
    assert [e["kind"] for e in await escalations(store, tenant)] == ["input_required", "resolved"]

    with pytest.raises(ContestedResolvedError):
        await store.resolve_contested(tenant, slot.id, value="morning", at=at)


async def test_after_resolution_a_context_claim_supersedes_only_its_context(store, tenant):
    await oscillate(store, tenant)
    (slot,) = await store.list_contested(tenant)
    await store.resolve_contested(
        tenant, slot.id, by_context={"consulting": "morning"}, default="afternoon", at=T0 + timedelta(days=13)
    )
    await store.write([claim(tenant, 14, "evening", context="consulting")])

    current = {m.context: m.value for m in await active_meeting(store, tenant)}
    assert current == {None: "afternoon", "consulting": "evening"}
    assert await store.list_contested(tenant) == []


async def test_a_single_value_resolution_and_bad_requests(store, tenant):
    await oscillate(store, tenant)
    (slot,) = await store.list_contested(tenant)
    with pytest.raises(InvalidRequestError):
        await store.resolve_contested(tenant, slot.id, value="morning", by_context={"x": "y"})
    with pytest.raises(InvalidRequestError):
        await store.resolve_contested(tenant, slot.id)
    assert await store.resolve_contested("another-tenant", slot.id, value="afternoon") is None

    await store.resolve_contested(tenant, slot.id, value="afternoon", at=T0 + timedelta(days=13))
    (only,) = await active_meeting(store, tenant)
    assert (only.value, only.context) == ("afternoon", None)


async def test_erasure_removes_the_users_contested_slots(store, tenant):
    await oscillate(store, tenant)
    await store.erase_user(tenant, "u1")
    assert await store.list_contested(tenant, status=None) == []
