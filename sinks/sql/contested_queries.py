"""The statements of contested slots: load a batch's loop state, upsert slots, list them, resolve one."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from beliefs import loops
from beliefs.attributes import attribute_spec
from beliefs.confidence import RESOLUTION_CONFIDENCE
from beliefs.contested import ContestedSlot, LoopBook
from beliefs.loops import Pair
from beliefs.records import EventKind, Memory, MemoryEvent, MemoryState, MemoryType, Visibility, memory_id_for
from sinks.reach import EVERY_AGENT, Reach
from sinks.sql import queries
from sinks.sql.tables import contested_slots, memories


def slot_row(slot: ContestedSlot) -> dict[str, Any]:
    return {
        "id": slot.id,
        "tenant_id": slot.tenant_id,
        "user_id": slot.user_id,
        "entity": slot.entity,
        "attribute": slot.attribute,
        "status": slot.status,
        "value_history": slot.value_history,
        "opened_at": slot.opened_at,
        "resolved_at": slot.resolved_at,
        "resolution": slot.resolution,
        "agent_id": slot.agent_id,
    }


def row_slot(row: Mapping[str, Any]) -> ContestedSlot:
    return ContestedSlot(
        id=row["id"],
        tenant_id=row["tenant_id"],
        user_id=row["user_id"],
        entity=row["entity"],
        attribute=row["attribute"],
        status=row["status"],
        value_history=list(row["value_history"] or []),
        opened_at=row["opened_at"],
        resolved_at=row["resolved_at"],
        resolution=row["resolution"],
        agent_id=row["agent_id"],
    )


async def load_loop_book(
    conn: AsyncConnection, batch: Sequence[Memory], threshold: int, window_days: float
) -> LoopBook:
    """The contested slots and recent supersessions of the pairs `batch` may flip, in the scope of
    each claim (shared, or one agent's private beliefs)."""
    keyed = [(p, m.private_to) for m in batch if loops.can_loop(m) and (p := loops.pair_of(m)) is not None]
    book = LoopBook(threshold=threshold, window_days=window_days)
    if not keyed:
        return book
    since = min(m.valid_from for m in batch) - timedelta(days=window_days)
    wanted = set(keyed)
    pairs = list(dict.fromkeys(pair for pair, _ in keyed))
    for part in queries.chunked(pairs):
        scope = _pair_filter(contested_slots, part)
        for row in (await conn.execute(sa.select(contested_slots).where(*scope))).mappings():
            slot = row_slot(row)
            if slot.key in wanted:
                book.slots[slot.key] = slot
        closed = await queries.memories_where(
            conn,
            *_pair_filter(memories, part),
            memories.c.state == MemoryState.SUPERSEDED.value,
            memories.c.valid_until >= since,
        )
        for memory in closed:
            key = (loops.pair_of(memory), memory.private_to)
            if key in wanted:
                book.superseded.setdefault(key, []).append(memory)
    return book


async def upsert_slots(conn: AsyncConnection, slots: Sequence[ContestedSlot]) -> None:
    if not slots:
        return
    stmt = queries.dialect_insert(conn, contested_slots)
    mutable = ("status", "value_history", "opened_at", "resolved_at", "resolution")
    stmt = stmt.on_conflict_do_update(
        index_elements=[contested_slots.c.id], set_={name: stmt.excluded[name] for name in mutable}
    )
    await conn.execute(stmt, [slot_row(slot) for slot in slots])


async def list_slots(
    conn: AsyncConnection,
    tenant_id: str,
    user_id: str | None,
    status: str | None,
    limit: int,
    reach: Reach = EVERY_AGENT,
) -> list[ContestedSlot]:
    criteria = [contested_slots.c.tenant_id == tenant_id, *queries.within_reach(contested_slots, reach)]
    if user_id is not None:
        criteria.append(contested_slots.c.user_id == user_id)
    if status is not None:
        criteria.append(contested_slots.c.status == status)
    stmt = (
        sa.select(contested_slots)
        .where(*criteria)
        .order_by(contested_slots.c.opened_at, contested_slots.c.id)
        .limit(limit)
    )
    return [row_slot(row) for row in (await conn.execute(stmt)).mappings()]


async def get_slot(
    conn: AsyncConnection, tenant_id: str, slot_id: str, reach: Reach = EVERY_AGENT
) -> ContestedSlot | None:
    stmt = sa.select(contested_slots).where(
        contested_slots.c.tenant_id == tenant_id,
        contested_slots.c.id == slot_id,
        *queries.within_reach(contested_slots, reach),
    )
    row = (await conn.execute(stmt)).mappings().first()
    return row_slot(row) if row is not None else None


async def slot_memories(conn: AsyncConnection, slot: ContestedSlot) -> list[Memory]:
    """The pair's contested and current memories of the slot's scope: what a resolution closes.

    A shared slot closes shared memories only; an agent's private slot only that agent's.
    """
    found = await queries.memories_where(
        conn,
        *_pair_filter(memories, [slot.pair]),
        memories.c.valid_until.is_(None),
        memories.c.state.in_([MemoryState.CONTESTED.value, MemoryState.ACTIVE.value]),
        order=(memories.c.created_at, memories.c.id),
    )
    return [m for m in found if m.private_to == slot.agent_id]


def plan_resolution(
    slot: ContestedSlot,
    closing: Sequence[Memory],
    choices: Sequence[tuple[str | None, str]],
    at: datetime,
    resolved_by: str,
    embeddings: Mapping[str, Sequence[float]],
) -> tuple[ContestedSlot, list[tuple[Memory, Sequence[float] | None]], list[Memory], list[MemoryEvent]]:
    """The meta-memories of a resolution, the memories it closes, the resolved slot and the events."""
    spec = attribute_spec(slot.attribute)
    template = closing[-1] if closing else None
    turn_ids = list(dict.fromkeys(t for m in closing for t in m.source_turn_ids))
    evidence = f"resolved by {resolved_by} at {at.isoformat()}"
    metas: list[tuple[Memory, Sequence[float] | None]] = []
    for context, value in choices:
        text = loops.resolution_text(slot.attribute, value, context)
        meta = Memory(
            id=memory_id_for(slot.tenant_id, f"contested:{slot.id}", f"{at.isoformat()}\x1f{context or ''}"),
            tenant_id=slot.tenant_id,
            user_id=slot.user_id,
            agent_id=slot.agent_id,
            visibility=Visibility.USER if slot.agent_id is None else Visibility.AGENT,
            text=text,
            type=spec.type if spec else (template.type if template else MemoryType.PREFERENCE),
            topic=spec.topic if spec else (template.topic if template else "personal"),
            importance=loops.RESOLUTION_IMPORTANCE,
            confidence=RESOLUTION_CONFIDENCE,
            entity=slot.entity,
            attribute=slot.attribute,
            value=value,
            context=context,
            source_turn_ids=turn_ids,
            evidence=evidence,
            created_at=at,
            valid_from=at,
            last_confirmed=at,
            half_life_days=spec.half_life_days if spec else None,
        )
        metas.append((meta, embeddings.get(text)))
    by_context = {m.context: m for m, _ in metas}
    closed: list[Memory] = []
    events: list[MemoryEvent] = [MemoryEvent.about(EventKind.CREATED, m, at) for m, _ in metas]
    for memory in closing:
        successor = by_context.get(_context(memory.context)) or by_context.get(None) or metas[0][0]
        done = memory.model_copy(
            update={"state": MemoryState.SUPERSEDED, "valid_until": at, "superseded_by": successor.id}
        )
        closed.append(done)
        events.append(MemoryEvent.about(EventKind.SUPERSEDED, done, at))
    resolution: dict[str, Any] = {
        "by_context": {c: v for c, v in choices if c is not None},
        "default": next((v for c, v in choices if c is None), None),
        "resolved_by": resolved_by,
        "memory_ids": [m.id for m, _ in metas],
    }
    resolved = replace(slot, status="resolved", resolved_at=at, resolution=resolution)
    return resolved, metas, closed, events


def resolved_event(slot: ContestedSlot) -> dict[str, Any]:
    """The escalation's closing event: the loop is decided, these values now hold."""
    return {
        "kind": "resolved",
        "contested_id": slot.id,
        "tenant_id": slot.tenant_id,
        "user_id": slot.user_id,
        "entity": slot.entity,
        "attribute": slot.attribute,
        "agent_id": slot.agent_id,
        "resolution": slot.resolution,
    }


def escalation_row(topic: str, payload: Mapping[str, Any], now: datetime) -> dict[str, Any]:
    """An outbox row on the escalations topic, keyed like turns so a user's escalations stay in order."""
    return {
        "topic": topic,
        "key": f"{payload['tenant_id']}:{payload['user_id']}",
        "value": json.dumps(payload, default=str).encode("utf-8"),
        "created_at": now,
    }


def _context(context: str | None) -> str | None:
    return context.strip().lower() if context else None


def _pair_filter(table: sa.Table, pairs: Sequence[Pair]) -> list[Any]:
    """A coarse IN filter per column; callers keep only the exact pairs."""
    return [
        table.c.tenant_id.in_({p[0] for p in pairs}),
        table.c.user_id.in_({p[1] for p in pairs}),
        table.c.entity.in_({p[2] for p in pairs}),
        table.c.attribute.in_({p[3] for p in pairs}),
    ]
