"""The governance statements of the SQL store: direct insert, revocation and erasure.

Each function runs inside a write transaction the store opens, so a change and the event that
describes it commit together. Revocation is one conditional UPDATE: of two concurrent revokes only
one changes the row, so only one `revoked` event is ever written. Erasure deletes every row of the
user outright (memories and their embeddings, jobs, contested pairs with their value history, the
recall audit, unpublished events) and leaves one deletion receipt in `erasure_receipts`: counts per
kind, when, by which key, and the user only as a digest. A table that gains rows of a user adds one
line to `USER_TABLES`.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from beliefs.contested import LoopBook
from beliefs.episodes import EpisodeEvent
from beliefs.records import EventKind, JobState, Memory, MemoryEvent, MemoryState, Turn
from beliefs.write_plan import BeliefView, TurnOutcome, WritePlan, plan_write, slot_key, text_key
from sinks.base import ErasureReport
from sinks.sql import projection, queries
from sinks.sql.column_types import UtcDateTime
from sinks.sql.embedding_joins import has_embedding
from sinks.sql.outcome import check_outcome
from sinks.sql.tables import (
    contested_slots,
    erasure_receipts,
    jobs,
    memories,
    memory_embeddings,
    outbox,
    recall_audit,
)

#: Tables keyed by (tenant_id, user_id) whose rows erasure deletes, by the kind its receipt counts.
USER_TABLES: dict[str, sa.Table] = {
    "jobs": jobs,
    "contested_slots": contested_slots,  # with their value_history
    "recall_audit": recall_audit,
}

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
            **projection.owed(memories, has_embedding()),
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


def user_digest(tenant_id: str, user_id: str) -> str:
    """What a receipt keeps of the user: sha256 of (tenant, user), matchable by whoever knows the id."""
    return hashlib.sha256(f"{tenant_id}\x1f{user_id}".encode()).hexdigest()


async def erase_user(
    conn: AsyncConnection,
    tenant_id: str,
    user_id: str,
    now: datetime,
    key_id: str | None = None,
    removed: Mapping[str, int] | None = None,
) -> ErasureReport:
    """Delete every row of the user (see the module docstring) and write the deletion receipt.

    `vector_points` counts the points of the deleted memories, which the caller deletes from the index.
    """
    mine = (memories.c.tenant_id == tenant_id, memories.c.user_id == user_id)
    memory_ids = list((await conn.scalars(sa.select(memories.c.id).where(*mine))).all())
    counts = {"memories": len(memory_ids), "embeddings": 0, "vector_points": len(memory_ids)}
    for part in queries.chunked(memory_ids):
        deleted = await conn.execute(sa.delete(memory_embeddings).where(memory_embeddings.c.memory_id.in_(part)))
        counts["embeddings"] += deleted.rowcount
    await conn.execute(sa.delete(memories).where(*mine))
    await projection.bury(conn, memory_ids)
    for kind, table in USER_TABLES.items():
        deleted = await conn.execute(sa.delete(table).where(table.c.tenant_id == tenant_id, table.c.user_id == user_id))
        counts[kind] = deleted.rowcount
    events = await conn.execute(sa.delete(outbox).where(outbox.c.key == f"{tenant_id}:{user_id}"))
    counts["outbox_events"] = events.rowcount
    for kind, n in (removed or {}).items():  # rows the caller deleted in the same transaction
        counts[kind] = n
    counts["vector_points"] += counts.get("episodes", 0)
    receipt_id = uuid.uuid4().hex
    await conn.execute(
        sa.insert(erasure_receipts).values(
            id=receipt_id,
            tenant_id=tenant_id,
            user_digest=user_digest(tenant_id, user_id),
            key_id=key_id,
            erased_at=now,
            counts=counts,
        )
    )
    return ErasureReport(
        memory_ids=memory_ids, job_count=counts["jobs"], counts=counts, receipt_id=receipt_id, erased_at=now
    )
