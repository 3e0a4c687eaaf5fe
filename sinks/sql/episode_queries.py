"""The write-side statements of episodes: insert with the batch, outbox, revoke, list, erase, retention.

Each runs inside a connection or transaction the store opens: an episode is inserted in the same
transaction as its turn's memories and job, so a crash never leaves one without the other.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from beliefs.episodes import Episode, EpisodeState
from beliefs.records import as_utc
from sinks.contracts import ANY_CONTEXT, ConversationContext
from sinks.reach import EVERY_AGENT, Reach
from sinks.sql import projection, queries
from sinks.sql.column_types import UtcDateTime
from sinks.sql.convert import (
    EPISODE_FIELDS,
    episode_embedding_row,
    episode_row,
    row_episode,
)
from sinks.sql.embedding_joins import episode_has_embedding
from sinks.sql.queries import chunked, dialect_insert
from sinks.sql.tables import episode_embeddings, episodes

#: The columns of an episode record (everything but the sink's bookkeeping).
EPISODE_COLUMNS = [episodes.c[name] for name in EPISODE_FIELDS]


async def insert_episodes(conn: AsyncConnection, items: Iterable[tuple[Episode, Sequence[float] | None]]) -> None:
    """Insert new episodes with their embeddings; an id already stored is left alone (a replay)."""
    pairs = list(items)
    if not pairs:
        return
    stmt = dialect_insert(conn, episodes).on_conflict_do_nothing(index_elements=[episodes.c.id])
    await conn.execute(stmt, [episode_row(episode, embedding) for episode, embedding in pairs])
    vectors = [episode_embedding_row(e.id, embedding) for e, embedding in pairs if embedding is not None]
    if vectors:
        keyed = dialect_insert(conn, episode_embeddings).on_conflict_do_nothing(
            index_elements=[episode_embeddings.c.episode_id]
        )
        await conn.execute(keyed, vectors)


def pending_vectors_statement(limit: int) -> sa.Select:
    """Episodes whose point must be (re)written, oldest first, with embedding and version."""
    return (
        sa.select(*EPISODE_COLUMNS, episode_embeddings.c.embedding, episodes.c.vector_version)
        .select_from(episodes.join(episode_embeddings, episode_embeddings.c.episode_id == episodes.c.id))
        .where(episodes.c.vector_dirty == sa.true())
        .order_by(episodes.c.created_at, episodes.c.id)
        .limit(limit)
    )


async def episodes_where(conn: AsyncConnection, *criteria: Any) -> list[Episode]:
    stmt = sa.select(*EPISODE_COLUMNS).where(*criteria)
    return [row_episode(row) for row in (await conn.execute(stmt)).mappings()]


async def revoke(conn: AsyncConnection, tenant_id: str, episode_id: str, at: datetime) -> tuple[Episode | None, bool]:
    """Revoke the episode unless it already is; the episode as stored after, and whether it changed."""
    stmt = (
        sa.update(episodes)
        .where(episodes.c.tenant_id == tenant_id, episodes.c.id == episode_id, episodes.c.revoked_at.is_(None))
        .values(
            state=EpisodeState.REVOKED.value,
            revoked_at=sa.literal(at, UtcDateTime()),
            **projection.owed(episodes, episode_has_embedding()),
        )
    )
    changed = (await conn.execute(stmt)).rowcount == 1
    found = await episodes_where(conn, episodes.c.tenant_id == tenant_id, episodes.c.id == episode_id)
    return (found[0] if found else None), changed and bool(found)


async def list_page(
    conn: AsyncConnection,
    tenant_id: str,
    user_id: str,
    state: EpisodeState | None,
    limit: int,
    cursor: str | None,
    newest_first: bool = False,
    reach: Reach = EVERY_AGENT,
    context: ConversationContext = ANY_CONTEXT,
) -> tuple[list[Episode], str | None]:
    """One page within `reach` in (said_at, id) order (or newest first) and the cursor of the next
    (None on the last)."""
    stmt = sa.select(*EPISODE_COLUMNS).where(
        episodes.c.tenant_id == tenant_id,
        episodes.c.user_id == user_id,
        *queries.within_reach(episodes, reach),
        *queries.within_context(episodes, context, episodes.c.session_id),
    )
    if state is not None:
        stmt = stmt.where(episodes.c.state == EpisodeState(state).value)
    keys = (episodes.c.said_at, episodes.c.id)
    return await queries.keyset_page(
        conn, stmt, keys, limit, cursor, row_episode, lambda e: (e.said_at, e.id), newest_first
    )


async def delete(conn: AsyncConnection, ids: Sequence[str]) -> None:
    """Delete episodes and their embeddings by id (the FTS rows follow by trigger)."""
    for part in chunked(list(ids)):
        await conn.execute(sa.delete(episode_embeddings).where(episode_embeddings.c.episode_id.in_(part)))
        await conn.execute(sa.delete(episodes).where(episodes.c.id.in_(part)))
    await projection.bury(conn, ids)


async def erase_user(conn: AsyncConnection, tenant_id: str, user_id: str) -> list[str]:
    """Delete every episode of the user; the deleted ids."""
    mine = (episodes.c.tenant_id == tenant_id, episodes.c.user_id == user_id)
    ids = list((await conn.scalars(sa.select(episodes.c.id).where(*mine))).all())
    await delete(conn, ids)
    return ids


async def expired_ids(
    conn: AsyncConnection,
    now: datetime,
    limit: int,
    tenant_id: str | None = None,
    users: queries.Users | None = None,
) -> list[str]:
    """Ids of episodes past their retention (`expires_at <= now`; of one tenant, of some users, or
    all), at most `limit`."""
    criteria = [episodes.c.expires_at.is_not(None), episodes.c.expires_at <= as_utc(now)]
    if tenant_id is not None:
        criteria.append(episodes.c.tenant_id == tenant_id)
    criteria += queries.of_users(episodes, users)
    stmt = sa.select(episodes.c.id).where(*criteria).order_by(episodes.c.expires_at, episodes.c.id).limit(limit)
    return list((await conn.scalars(stmt)).all())
