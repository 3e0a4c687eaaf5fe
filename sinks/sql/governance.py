"""The governance statements of the SQL store: direct insert, revocation and erasure.

Each function runs inside a write transaction the store opens, so a change and the event that
describes it commit together. Revocation is one conditional UPDATE: of two concurrent revokes only
one changes the row, so only one `revoked` event is ever written. Erasure deletes rows outright
(memories, jobs, unpublished events): a user who is erased leaves nothing in SQL to recall.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from sinks.base import ErasureReport, TurnOutcome
from sinks.sql import queries
from sinks.sql.contested import LoopBook
from sinks.sql.plan import BeliefView, WritePlan, check_outcome, plan_write, slot_key, text_key
from sinks.sql.tables import UtcDateTime, has_embedding, jobs, memories, memory_embeddings, outbox
from streams.records import EpisodeEvent, EventKind, JobState, Memory, MemoryEvent, MemoryState, Turn

#: Prefix of the synthetic turn id a direct insert cites in its events when it names no turn.
DIRECT_TURN_PREFIX = "direct:"


def event_row(topic: str, event: MemoryEvent | EpisodeEvent, now: datetime) -> dict[str, Any]:
    """The outbox row of one event; keyed like turns (`tenant:user`) so a user's events stay in order."""
    return {
        "topic": topic,
        "key": f"{event.tenant_id}:{event.user_id}",
        "value": event.model_dump_json().encode("utf-8"),
        "created_at": now,
    }


def direct_outcome(memory: Memory, embedding: Sequence[float] | None) -> TurnOutcome:
    """A one-memory outcome for `plan_write`, so a direct insert reconciles exactly like an extracted one."""
    turn = Turn(
        turn_id=memory.source_turn_ids[0] if memory.source_turn_ids else f"{DIRECT_TURN_PREFIX}{memory.id}",
        tenant_id=memory.tenant_id,
        user_id=memory.user_id,
        agent_id=memory.agent_id,
        session_id=memory.source_session,
        role=memory.source_role,
        text=memory.evidence or memory.text,
        ts=memory.valid_from,
    )
    return TurnOutcome(
        turn=turn,
        job_id=f"{DIRECT_TURN_PREFIX}{memory.id}",
        state=JobState.DONE,
        memories=[memory],
        embeddings=[embedding] if embedding is not None else [],
    )


async def plan_direct_insert(
    conn: AsyncConnection,
    memory: Memory,
    embedding: Sequence[float] | None,
    now: datetime,
    book: LoopBook | None = None,
) -> WritePlan:
    """Plan one memory against the active beliefs it can collide with; no job row is planned.

    A memory whose id is already stored plans nothing (a retried insert). With `book`, a
    contradiction loop is contested exactly as on the write path.
    """
    outcome = direct_outcome(memory, embedding)
    check_outcome(outcome)
    existing = await queries.existing_memory_ids(conn, [(memory.tenant_id, memory.id)])
    active: list[Memory] = []
    if not existing:
        slot = slot_key(memory)
        active = await queries.load_active(conn, [slot] if slot is not None else [], [text_key(memory)])
    plan = plan_write([outcome], known_jobs={}, existing_ids=existing, view=BeliefView(active), now=now, book=book)
    plan.jobs.clear()  # a direct insert is not a retained turn: nothing for GET /v1/jobs
    return plan


async def revoke_memory(
    conn: AsyncConnection, tenant_id: str, memory_id: str, at: datetime
) -> tuple[Memory | None, MemoryEvent | None]:
    """Revoke the memory if it is not already; the memory as stored after, and the event if it changed."""
    moment = sa.literal(at, UtcDateTime())
    stmt = (
        sa.update(memories)
        .where(memories.c.tenant_id == tenant_id, memories.c.id == memory_id, memories.c.revoked_at.is_(None))
        .values(
            state=MemoryState.REVOKED.value,
            revoked_at=moment,
            valid_until=sa.func.coalesce(memories.c.valid_until, moment),
            vector_dirty=has_embedding(),
            vector_version=memories.c.vector_version + 1,
        )
    )
    changed = (await conn.execute(stmt)).rowcount == 1
    found = await queries.memories_where(conn, memories.c.tenant_id == tenant_id, memories.c.id == memory_id)
    if not found:
        return None, None
    memory = found[0]
    if not changed:
        return memory, None
    event = MemoryEvent.about(EventKind.REVOKED, memory, at)
    return memory, event


async def erase_user(conn: AsyncConnection, tenant_id: str, user_id: str) -> ErasureReport:
    """Delete the user's memories, jobs and not yet published events; the deleted memory ids."""
    mine = (memories.c.tenant_id == tenant_id, memories.c.user_id == user_id)
    memory_ids = list((await conn.scalars(sa.select(memories.c.id).where(*mine))).all())
    for part in queries.chunked(memory_ids):
        await conn.execute(sa.delete(memory_embeddings).where(memory_embeddings.c.memory_id.in_(part)))
    await conn.execute(sa.delete(memories).where(*mine))
    deleted_jobs = await conn.execute(
        sa.delete(jobs).where(jobs.c.tenant_id == tenant_id, jobs.c.user_id == user_id)
    )
    await conn.execute(sa.delete(outbox).where(outbox.c.key == f"{tenant_id}:{user_id}"))
    return ErasureReport(memory_ids=memory_ids, job_count=deleted_jobs.rowcount)
