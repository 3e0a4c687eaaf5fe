"""The consolidation statements: load a topic's active memories with their embeddings, and write
merges (canonical memory in, originals closed, events in the outbox) in one transaction.

A merge is written only if every one of its originals is still active when the transaction
holds them (PostgreSQL locks them with `FOR UPDATE`; SQLite's `BEGIN IMMEDIATE` already holds the
write lock). A merge that raced a supersession, a revocation or another consolidation run is
skipped whole, so no memory is ever consolidated into two canonical memories.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from beliefs.records import Memory, MemoryState
from sinks.manage import MergeWrite
from sinks.reach import EVERY_AGENT, Reach
from sinks.sql import queries
from sinks.sql.convert import decode_embedding, memory_changes, row_memory
from sinks.sql.errors import InvalidRequestError
from sinks.sql.governance import event_row
from sinks.sql.tables import memories

#: Fewer than this many active memories in a (tenant, user, topic) cannot consolidate.
MIN_GROUP = 2


def _active(tenant_id: str) -> list[sa.ColumnElement[bool]]:
    return [
        memories.c.tenant_id == tenant_id,
        memories.c.state == MemoryState.ACTIVE.value,
        memories.c.valid_until.is_(None),
    ]


async def load_candidates(
    conn: AsyncConnection, tenant_id: str, topic: str, user_id: str | None, reach: Reach = EVERY_AGENT
) -> list[tuple[Memory, list[float] | None]]:
    """Active memories of the topic (one user's, or every user's of the tenant) within `reach`, with embeddings."""
    criteria = [*_active(tenant_id), memories.c.topic == topic, *queries.within_reach(memories, reach)]
    if user_id is not None:
        criteria.append(memories.c.user_id == user_id)
    stmt = (
        queries.select_with_embeddings()
        .where(*criteria)
        .order_by(memories.c.user_id, memories.c.created_at, memories.c.id)
    )
    rows = (await conn.execute(stmt)).mappings().all()
    return [(row_memory(row), decode_embedding(row["embedding"])) for row in rows]


async def scopes(
    conn: AsyncConnection, tenant_id: str | None = None, users: queries.Users | None = None
) -> list[tuple[str, str, str]]:
    """(tenant, user, topic) triples (of one tenant, of some users, or all) with enough active
    memories to consolidate anything."""
    criteria = [memories.c.state == MemoryState.ACTIVE.value, memories.c.valid_until.is_(None)]
    if tenant_id is not None:
        criteria.append(memories.c.tenant_id == tenant_id)
    criteria += queries.of_users(memories, users)
    key = (memories.c.tenant_id, memories.c.user_id, memories.c.topic)
    stmt = sa.select(*key).where(*criteria).group_by(*key).having(sa.func.count() >= MIN_GROUP).order_by(*key)
    return [(row[0], row[1], row[2]) for row in await conn.execute(stmt)]


async def still_active(conn: AsyncConnection, tenant_id: str, ids: Sequence[str]) -> set[str]:
    """Those of `ids` still active, locked against concurrent change until the transaction ends."""
    live: set[str] = set()
    for part in queries.chunked(list(dict.fromkeys(ids))):
        stmt = sa.select(memories.c.id).where(*_active(tenant_id), memories.c.id.in_(part))
        if conn.dialect.name == "postgresql":
            stmt = stmt.with_for_update()
        live |= set((await conn.scalars(stmt)).all())
    return live


async def write_merges(
    conn: AsyncConnection, tenant_id: str, merges: Sequence[MergeWrite], events_topic: str, now: datetime
) -> list[MergeWrite]:
    """Write every merge whose originals are all still active; answers the merges written."""
    for merge in merges:
        if any(m.tenant_id != tenant_id for m in (merge.canonical, *merge.originals)):
            raise InvalidRequestError(f"merge {merge.canonical.id} leaves tenant {tenant_id!r}")
    live = await still_active(conn, tenant_id, [m.id for merge in merges for m in merge.originals])
    written = [merge for merge in merges if all(m.id in live for m in merge.originals)]
    await queries.insert_memories(conn, [(w.canonical, w.embedding) for w in written])
    await queries.update_memories(
        conn, [dict(memory_changes(m), id=m.id) for w in written for m in w.originals]
    )
    await queries.insert_outbox(
        conn, [event_row(events_topic, event, now) for w in written for event in w.events]
    )
    return written
