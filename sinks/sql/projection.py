"""The SQL side of the vector outbox: what a write owes the index, in the write's own transaction.

A row whose point must be (re)written carries `vector_dirty` with `vector_dirty_at` (since when);
a deleted row leaves a tombstone in `vector_tombstones`. Both commit with the change itself, so
the projector (`agents.projector`) finds every owed point after any crash, and nothing else writes
the index. These are the statements; `sinks.sql.vector_outbox` serves them to the projector.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from beliefs.records import as_utc, utcnow
from sinks.sql.column_types import UtcDateTime
from sinks.sql.tables import episodes, memories, vector_tombstones

CHUNK = 500


def owed_since(table: sa.Table) -> sa.ColumnElement:
    """`vector_dirty_at` for an update that dirties a row: kept if the point was already owed, else now
    (the wall clock: the projector's lag, not the business time a job may run at)."""
    moment = sa.literal(utcnow(), UtcDateTime())
    return sa.func.coalesce(sa.case((table.c.vector_dirty == sa.true(), table.c.vector_dirty_at)), moment)


def owed(table: sa.Table, dirty: sa.ColumnElement) -> dict:
    """The columns of an update after which the row's point must be rewritten (when `dirty` holds)."""
    return {
        "vector_dirty": dirty,
        "vector_version": table.c.vector_version + 1,
        "vector_dirty_at": owed_since(table),
    }


#: The columns of a row whose point the index has.
SYNCED = {"vector_dirty": False, "vector_dirty_at": None}


async def bury(conn: AsyncConnection, point_ids: Sequence[str]) -> None:
    """Tombstones for the points of rows this transaction deletes."""
    if not point_ids:
        return
    at = utcnow()
    rows = [{"point_id": point_id, "created_at": at} for point_id in point_ids]
    for start in range(0, len(rows), CHUNK):
        await conn.execute(sa.insert(vector_tombstones), rows[start : start + CHUNK])


async def mark_synced(
    conn: AsyncConnection, table: sa.Table, versioned: Sequence[dict[str, Any]], unversioned: Sequence[str]
) -> None:
    """Clear `table`'s dirty flags: by (`b_id`, `b_version`) where a version was handed out (a row
    changed since stays owed), else by id."""
    if versioned:
        stmt = sa.update(table).where(
            table.c.id == sa.bindparam("b_id"), table.c.vector_version == sa.bindparam("b_version")
        )
        await conn.execute(stmt.values(SYNCED), list(versioned))
    for start in range(0, len(unversioned), CHUNK):
        part = list(unversioned[start : start + CHUNK])
        await conn.execute(sa.update(table).where(table.c.id.in_(part)).values(SYNCED))


async def tombstones(conn: AsyncConnection, limit: int) -> list[tuple[int, str]]:
    """The oldest `limit` tombstones as (seq, point id)."""
    stmt = sa.select(vector_tombstones.c.seq, vector_tombstones.c.point_id).order_by(vector_tombstones.c.seq)
    return [(row.seq, row.point_id) for row in (await conn.execute(stmt.limit(limit))).all()]


async def living(conn: AsyncConnection, point_ids: Sequence[str]) -> set[str]:
    """Those of `point_ids` that are rows again (re-created after their deletion): their points stay."""
    found: set[str] = set()
    for start in range(0, len(point_ids), CHUNK):
        part = list(point_ids[start : start + CHUNK])
        for table in (memories, episodes):
            found.update((await conn.scalars(sa.select(table.c.id).where(table.c.id.in_(part)))).all())
    return found


async def clear_tombstones(conn: AsyncConnection, seqs: Sequence[int]) -> None:
    for start in range(0, len(seqs), CHUNK):
        part = list(seqs[start : start + CHUNK])
        await conn.execute(sa.delete(vector_tombstones).where(vector_tombstones.c.seq.in_(part)))


async def backlog(conn: AsyncConnection) -> tuple[int, datetime | None]:
    """How many points are owed (rows to write, tombstones to delete) and since when the oldest."""
    count = 0
    oldest: list[datetime] = []
    for table in (memories, episodes):
        stmt = sa.select(sa.func.count(), sa.func.min(table.c.vector_dirty_at)).where(table.c.vector_dirty == sa.true())
        n, since = (await conn.execute(stmt)).one()
        count += n
        if since is not None:
            oldest.append(since)
    n, since = (
        await conn.execute(sa.select(sa.func.count(), sa.func.min(vector_tombstones.c.created_at)))
    ).one()
    count += n
    if since is not None:
        oldest.append(since)
    return count, min((as_utc(t) for t in oldest), default=None)
