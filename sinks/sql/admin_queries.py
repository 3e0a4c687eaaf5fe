"""The reads behind a person's look at one user: the overview's counts and the audit of reads.

Each is a handful of grouped counts or one keyset page over an index that starts with
(tenant_id, user_id), so a user with tens of thousands of rows answers in milliseconds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from beliefs.records import MemoryState, RecallAudit
from sinks.admin import UserOverview
from sinks.reach import Reach
from sinks.sql.queries import keyset_page, within_reach
from sinks.sql.tables import contested_slots, episodes, memories, recall_audit


async def _grouped(conn: AsyncConnection, column: sa.ColumnElement[Any], *criteria: Any) -> dict[str, int]:
    stmt = sa.select(column, sa.func.count()).where(*criteria).group_by(column)
    return {str(key): count for key, count in (await conn.execute(stmt)).all()}


async def overview(conn: AsyncConnection, tenant_id: str, user_id: str, reach: Reach) -> UserOverview:
    """Memories by state, the current ones by type and topic, episodes by state, open contested pairs."""
    mine = [memories.c.tenant_id == tenant_id, memories.c.user_id == user_id, *within_reach(memories, reach)]
    current = [*mine, memories.c.state == MemoryState.ACTIVE.value, memories.c.valid_until.is_(None)]
    told = [episodes.c.tenant_id == tenant_id, episodes.c.user_id == user_id, *within_reach(episodes, reach)]
    contested = [
        contested_slots.c.tenant_id == tenant_id,
        contested_slots.c.user_id == user_id,
        contested_slots.c.status == "open",
        *within_reach(contested_slots, reach),
    ]
    last_memory = await conn.scalar(sa.select(sa.func.max(memories.c.created_at)).where(*mine))
    last_said = await conn.scalar(sa.select(sa.func.max(episodes.c.said_at)).where(*told))
    return UserOverview(
        user_id=user_id,
        memories=await _grouped(conn, memories.c.state, *mine),
        current_by_type=await _grouped(conn, memories.c.type, *current),
        current_by_topic=await _grouped(conn, memories.c.topic, *current),
        episodes=await _grouped(conn, episodes.c.state, *told),
        open_contested=await conn.scalar(sa.select(sa.func.count()).where(*contested)) or 0,
        last_memory_at=last_memory,
        last_said_at=last_said,
    )


def _audit(row: Mapping[str, Any]) -> RecallAudit:
    return RecallAudit.model_validate(dict(row))


async def reads_page(
    conn: AsyncConnection, tenant_id: str, user_id: str, reach: Reach, limit: int, cursor: str | None
) -> tuple[list[RecallAudit], str | None]:
    """One page of the user's recall audit, newest first; a read by an agent only within `reach`."""
    stmt = sa.select(recall_audit).where(
        recall_audit.c.tenant_id == tenant_id,
        recall_audit.c.user_id == user_id,
        *within_reach(recall_audit, reach),
    )
    keys = (recall_audit.c.at, recall_audit.c.id)
    return await keyset_page(conn, stmt, keys, limit, cursor, _audit, lambda a: (a.at, a.id), descending=True)
