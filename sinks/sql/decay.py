"""The decay job's statements: a keyset-paginated scan of active rows and bulk score updates.

The scan asks the database for each row's age in days (SQLite `julianday`, PostgreSQL `extract
(epoch ...)`), so no timestamp is parsed in Python: the job is arithmetic over columns. Updates
are one statement per batch on PostgreSQL (a join against unnested arrays) and one prepared
statement run over the batch on SQLite, whose driver has no array type.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import lru_cache

import numpy as np
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.ext.asyncio import AsyncConnection

from beliefs.records import MemoryState, as_utc
from sinks.manage import DecayRows
from sinks.sql import projection, queries
from sinks.sql.embedding_joins import has_embedding
from sinks.sql.tables import memories

#: Julian day number of the Unix epoch (what SQLite's `julianday` counts from).
_UNIX_EPOCH_JULIAN = 2440587.5
_SECONDS_PER_DAY = 86_400.0


def _age_days(dialect: str, now: datetime) -> sa.ColumnElement[float]:
    """Days since the later of the last recall and the last confirmation, else since creation
    (`beliefs.age.days_since_reinforced`)."""
    recalled = sa.func.coalesce(memories.c.last_accessed, memories.c.created_at)
    confirmed = sa.func.coalesce(memories.c.last_confirmed, memories.c.created_at)
    moment = as_utc(now).timestamp()
    if dialect == "sqlite":
        now_julian = sa.literal(moment / _SECONDS_PER_DAY + _UNIX_EPOCH_JULIAN, sa.Double)
        since = sa.func.max(sa.func.julianday(recalled), sa.func.julianday(confirmed), type_=sa.Double)
        return now_julian - since
    since = sa.func.greatest(recalled, confirmed)
    epoch = sa.cast(sa.extract("epoch", since), sa.Double)
    return (sa.literal(moment, sa.Double) - epoch) / _SECONDS_PER_DAY


async def scan_active(
    conn: AsyncConnection,
    after_id: str | None,
    limit: int,
    now: datetime,
    tenant_id: str | None = None,
    users: queries.Users | None = None,
) -> DecayRows:
    """The next `limit` active rows after `after_id` (by primary key; of one tenant, or of some
    users, or all), with their decay inputs."""
    expired = sa.case(
        (sa.and_(memories.c.expires_at.is_not(None), memories.c.expires_at <= as_utc(now)), 1), else_=0
    )
    criteria = [memories.c.state == MemoryState.ACTIVE.value]
    if after_id is not None:
        criteria.append(memories.c.id > after_id)
    if tenant_id is not None:
        criteria.append(memories.c.tenant_id == tenant_id)
    criteria += queries.of_users(memories, users)
    stmt = (
        sa.select(
            memories.c.id,
            _age_days(conn.dialect.name, now).label("age"),
            memories.c.access_count,
            memories.c.decay_score,
            expired.label("expired"),
        )
        .where(*criteria)
        .order_by(memories.c.id)
        .limit(limit)
    )
    rows = (await conn.execute(stmt)).all()
    return DecayRows(
        ids=[row[0] for row in rows],
        age_days=np.fromiter((row[1] for row in rows), dtype=np.float64, count=len(rows)),
        access_counts=np.fromiter((row[2] for row in rows), dtype=np.int64, count=len(rows)),
        scores=np.fromiter(
            (np.nan if row[3] is None else row[3] for row in rows), dtype=np.float64, count=len(rows)
        ),
        expired=np.fromiter((bool(row[4]) for row in rows), dtype=bool, count=len(rows)),
    )


async def write_scores(conn: AsyncConnection, ids: Sequence[str], scores: Sequence[float]) -> None:
    """Set `decay_score` by id. The vector point is not marked dirty: the job sets its payload itself."""
    if not ids:
        return
    if conn.dialect.name == "postgresql":
        await conn.execute(_unnest_update(), {"ids": list(ids), "scores": [float(s) for s in scores]})
        return
    stmt = (
        sa.update(memories)
        .where(memories.c.id == sa.bindparam("b_id"))
        .values(decay_score=sa.bindparam("b_score"))
    )
    await conn.execute(stmt, [{"b_id": i, "b_score": float(s)} for i, s in zip(ids, scores, strict=True)])


@lru_cache(maxsize=1)
def _unnest_update() -> sa.TextClause:
    return sa.text(
        "UPDATE memories AS m SET decay_score = v.score "
        "FROM unnest(:ids, :scores) AS v(id, score) WHERE m.id = v.id"
    ).bindparams(
        sa.bindparam("ids", type_=postgresql.ARRAY(sa.String)),
        sa.bindparam("scores", type_=postgresql.ARRAY(sa.Double)),
    )


async def expire(conn: AsyncConnection, ids: Sequence[str], now: datetime) -> list[str]:
    """Close rows whose `expires_at` has passed: state `expired`, valid until they expired.

    Only rows still active and still past their expiry change (a concurrent write may have closed
    or refreshed one since the scan); the changed ids are returned. Their vector point is marked
    dirty so the outbox rewrites it even if the caller's direct payload update is lost.
    """
    changed: list[str] = []
    for part in queries.chunked(list(ids)):
        stmt = (
            sa.update(memories)
            .where(
                memories.c.id.in_(part),
                memories.c.state == MemoryState.ACTIVE.value,
                memories.c.expires_at <= as_utc(now),
            )
            .values(
                state=MemoryState.EXPIRED.value,
                valid_until=memories.c.expires_at,
                **projection.owed(memories, has_embedding()),
            )
            .returning(memories.c.id)
        )
        changed.extend((await conn.scalars(stmt)).all())
    return changed


async def owe_points(conn: AsyncConnection, ids: Sequence[str]) -> int:
    """Mark the points of `ids` owed to the index (their payload changed: a rounded score moved);
    how many have a point (rows without an embedding have none)."""
    owed = 0
    for part in queries.chunked(list(ids)):
        stmt = sa.update(memories).where(memories.c.id.in_(part), has_embedding())
        owed += (await conn.execute(stmt.values(**projection.owed(memories, sa.true())))).rowcount
    return owed


async def active_users(
    conn: AsyncConnection, after: tuple[str, str] | None, limit: int, tenant_id: str | None = None
) -> list[tuple[str, str]]:
    """The next `limit` (tenant, user) pairs (of one tenant, or all) holding an active memory, in
    key order after `after`."""
    key = sa.tuple_(memories.c.tenant_id, memories.c.user_id)
    criteria = [memories.c.state == MemoryState.ACTIVE.value]
    if tenant_id is not None:
        criteria.append(memories.c.tenant_id == tenant_id)
    if after is not None:
        criteria.append(key > sa.tuple_(sa.literal(after[0]), sa.literal(after[1])))
    stmt = (
        sa.select(memories.c.tenant_id, memories.c.user_id)
        .where(*criteria)
        .group_by(memories.c.tenant_id, memories.c.user_id)
        .order_by(memories.c.tenant_id, memories.c.user_id)
        .limit(limit)
    )
    return [(row[0], row[1]) for row in await conn.execute(stmt)]
