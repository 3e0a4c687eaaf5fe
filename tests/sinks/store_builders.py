"""Builders of the SQL store tests: turns, memories, outcomes, and counts read back."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

from beliefs.records import JobState, Memory, Role, Turn, job_id_for, memory_id_for
from beliefs.write_plan import TurnOutcome
from sinks.sql import SqlMemoryStore

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
EVENTS = "test.memory.events"
ESCALATIONS = "test.escalations"
_turns = itertools.count(1)


def turn(tenant: str, user: str = "u1", minute: int | None = None, text: str = "...") -> Turn:
    n = next(_turns)
    return Turn(
        turn_id=f"t{n}",
        tenant_id=tenant,
        user_id=user,
        role=Role.USER,
        text=text,
        ts=T0 + timedelta(minutes=n if minute is None else minute),
    )


def mem(of: Turn, key: str = "0", **fields) -> Memory:
    """A memory of the turn `of`, with the id the pipeline would give it."""
    base = {
        "id": memory_id_for(of.tenant_id, of.turn_id, key),
        "tenant_id": of.tenant_id,
        "user_id": of.user_id,
        "text": f"memory {of.turn_id}/{key}",
        "type": "preference",
        "topic": "work",
        "importance": 0.5,
        "confidence": 0.9,
        "source_turn_ids": [of.turn_id],
        "created_at": of.ts,
        "valid_from": of.ts,
    }
    return Memory(**(base | fields))


def meeting(of: Turn, value: str, **fields) -> Memory:
    slot = {"entity": "user", "attribute": "preferred_meeting_time", "value": value}
    return mem(of, **({"text": f"User prefers {value} meetings"} | slot | fields))


def done(of: Turn, *memories_: Memory, embeddings: Sequence[Sequence[float]] | None = None) -> TurnOutcome:
    vectors = embeddings if embeddings is not None else [[0.5, -0.25, 1.0]] * len(memories_)
    return TurnOutcome(of, job_id_for(of.tenant_id, of.turn_id), JobState.DONE, None, memories_, vectors)


def said(tenant: str, value: str, user: str = "u1", **fields) -> TurnOutcome:
    """A turn stating a meeting-time preference."""
    t = turn(tenant, user)
    return done(t, meeting(t, value, **fields))


async def active_values(store: SqlMemoryStore, tenant: str, user: str = "u1") -> list[str | None]:
    page, _ = await store.list_memories(tenant, user)
    return sorted(m.value for m in page)


async def count(store: SqlMemoryStore, table: sa.Table) -> int:
    async with store._engine.connect() as conn:
        return (await conn.execute(sa.select(sa.func.count()).select_from(table))).scalar_one()
