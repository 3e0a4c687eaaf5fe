"""What a write needs to judge updates by subject, read in the write's own transaction.

For each scope (tenant, user, private agent) with a turn whose statement may update an earlier one
(it corrects, changes or ends something, or gives a typed value or a one-at-a-time slot: `Statement.may_update`), the user's own latest trusted episodes said before it (at most `EARLIER_EPISODES`, not
already superseded) with their embeddings, and their current beliefs with theirs, become the
`Statement`s `beliefs.currency_plan` judges against. Only those turns pay for the read. Also the
statement that writes the links an earlier episode got (`superseded_by`, `possibly_superseded_by`,
`superseded_at`): no vector payload carries them, so no point is owed.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from beliefs.currency_plan import CurrencyBook, Scope, scope_of
from beliefs.episodes import Episode, EpisodeState
from beliefs.records import Role, Trust, Visibility
from beliefs.write_plan import BeliefView, TurnOutcome
from reading.subject import statement_of
from sinks.sql.column_types import UtcDateTime
from sinks.sql.convert import decode_embedding, row_episode, row_memory
from sinks.sql.embedding_joins import episodes_with_embeddings
from sinks.sql.episode_queries import EPISODE_COLUMNS
from sinks.sql.queries import chunked, select_with_embeddings
from sinks.sql.tables import episode_embeddings, episodes, memories

#: Earlier episodes of a scope an update is judged against (the latest said before it).
EARLIER_EPISODES = 64


async def load_currency_book(conn: AsyncConnection, outcomes: Sequence[TurnOutcome], view: BeliefView) -> CurrencyBook:
    """The earlier statements the update-shaped `outcomes` are judged against; their current beliefs
    join `view` (so the plan can change them)."""
    latest: dict[Scope, TurnOutcome] = {}
    for outcome in outcomes:
        if outcome.episode is None or outcome.statement is None or not outcome.statement.may_update:
            continue
        scope = scope_of(outcome.episode)
        if scope not in latest or outcome.episode.said_at > latest[scope].episode.said_at:
            latest[scope] = outcome
    book = CurrencyBook()
    memory_ids: dict[str, None] = {}
    for scope, outcome in latest.items():
        for episode, vector in await _earlier_episodes(conn, scope, outcome.episode):
            book.episodes[episode.id] = episode
            book.remember(scope, statement_of(
                episode.id, "episode", episode.text, episode.said_at, episode.speaker, vector,
                memory_ids=episode.memory_ids,
            ))  # fmt: skip
            memory_ids.update(dict.fromkeys(episode.memory_ids))
    for part in chunked(list(memory_ids)):
        stmt = select_with_embeddings().where(memories.c.id.in_(part), memories.c.valid_until.is_(None))
        for row in (await conn.execute(stmt)).mappings():
            memory = row_memory(row)
            if not memory.is_current:
                continue
            view.put(memory)
            book.memory_statements[memory.id] = statement_of(
                memory.id, "memory", memory.text, memory.valid_from, None, decode_embedding(row["embedding"])
            )
    return book


async def _earlier_episodes(conn: AsyncConnection, scope: Scope, newest: Episode) -> list[tuple[Episode, list[float] | None]]:
    tenant_id, user_id, owner = scope
    criteria = [
        episodes.c.tenant_id == tenant_id,
        episodes.c.user_id == user_id,
        episodes.c.role == Role.USER.value,
        episodes.c.trust == Trust.TRUSTED.value,
        episodes.c.state == EpisodeState.ACTIVE.value,
        episodes.c.superseded_by.is_(None),
        episodes.c.said_at <= sa.literal(newest.said_at, UtcDateTime()),
    ]
    if owner is None:
        criteria.append(episodes.c.visibility != Visibility.AGENT.value)
    else:
        criteria += [episodes.c.visibility == Visibility.AGENT.value, sa.func.coalesce(episodes.c.agent_id, "") == owner]
    stmt = (
        sa.select(*EPISODE_COLUMNS, episode_embeddings.c.embedding)
        .select_from(episodes_with_embeddings)
        .where(*criteria)
        .order_by(episodes.c.said_at.desc(), episodes.c.id.desc())
        .limit(EARLIER_EPISODES)
    )
    rows = (await conn.execute(stmt)).mappings().all()
    return [(row_episode(row), decode_embedding(row["embedding"])) for row in rows]


async def update_links(conn: AsyncConnection, changed: Sequence[Episode]) -> None:
    """Write the currency links of existing episodes."""
    if not changed:
        return
    stmt = (
        sa.update(episodes)
        .where(episodes.c.id == sa.bindparam("b_id"))
        .values(
            superseded_by=sa.bindparam("b_superseded_by"),
            possibly_superseded_by=sa.bindparam("b_possibly"),
            superseded_at=sa.bindparam("b_at", type_=UtcDateTime()),
        )
    )
    rows = [
        {"b_id": e.id, "b_superseded_by": e.superseded_by, "b_possibly": e.possibly_superseded_by, "b_at": e.superseded_at}
        for e in changed
    ]
    await conn.execute(stmt, rows)
