"""The episode side of `SqlMemoryStore`: reads, revocation, and recall's episode reads.

A mixin over the store's engine, reader and events topic, so that episodes share the memories'
transactions and connection pool while `store.py` keeps to the belief state. Writing episodes
happens in `SqlMemoryStore.write`, in the same transaction as the turn's memories.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from beliefs.episodes import Episode, EpisodeEvent, EpisodeState
from beliefs.records import EventKind, utcnow
from sinks.contracts import ANY_CONTEXT, ConversationContext
from sinks.reach import EVERY_AGENT, Reach
from sinks.recall import Currency, KeywordHit, RecallScope
from sinks.sql import episode_queries, governance, queries
from sinks.sql.engine import unavailable_on_outage, write_transaction
from sinks.sql.errors import InvalidRequestError
from sinks.sql.tables import episodes

#: Largest page `list_episodes` returns.
MAX_EPISODE_PAGE = 1000


class EpisodeStoreMixin:
    """Episode methods of `SqlMemoryStore` (which provides `_engine`, `_reader`, `events_topic`)."""

    # -- reads and governance, scoped by tenant -----------------------------------------------------

    async def get_episode(self, tenant_id: str, episode_id: str) -> Episode | None:
        async with unavailable_on_outage("get_episode"), self._engine.connect() as conn:
            found = await episode_queries.episodes_where(
                conn, episodes.c.tenant_id == tenant_id, episodes.c.id == episode_id
            )
        return found[0] if found else None

    async def list_episodes(
        self,
        tenant_id: str,
        user_id: str,
        state: EpisodeState | None = EpisodeState.ACTIVE,
        limit: int = 100,
        cursor: str | None = None,
        newest_first: bool = False,
        reach: Reach = EVERY_AGENT,
        context: ConversationContext = ANY_CONTEXT,
    ) -> tuple[list[Episode], str | None]:
        if limit < 1:
            raise InvalidRequestError(f"limit must be at least 1, got {limit}")
        async with unavailable_on_outage("list_episodes"), self._engine.connect() as conn:
            return await episode_queries.list_page(
                conn, tenant_id, user_id, state, min(limit, MAX_EPISODE_PAGE), cursor, newest_first, reach, context
            )

    async def revoke_episode(self, tenant_id: str, episode_id: str, at: datetime) -> Episode | None:
        async with unavailable_on_outage("revoke_episode"), write_transaction(self._engine) as conn:
            episode, changed = await episode_queries.revoke(conn, tenant_id, episode_id, at)
            if changed and episode is not None:
                event = EpisodeEvent.about(EventKind.EPISODE_REVOKED, episode, at)
                await queries.insert_outbox(conn, [governance.event_row(self.events_topic, event, utcnow())])
        return episode

    # -- recall's reads: scope and currency in every statement (sinks.sql.episode_recall) -----------

    async def episode_keyword_candidates(
        self, scope: RecallScope, currency: Currency, terms: Sequence[str], limit: int
    ) -> list[KeywordHit]:
        return await self._reader.episode_keyword_candidates(scope, currency, terms, limit)

    async def hydrate_episodes(self, scope: RecallScope, currency: Currency, ids: Sequence[str]) -> list[Episode]:
        return await self._reader.hydrate_episodes(scope, currency, ids)

    async def episode_neighbours(
        self, scope: RecallScope, currency: Currency, ids: Sequence[str], window: int
    ) -> dict[str, list[Episode]]:
        return await self._reader.episode_neighbours(scope, currency, ids, window)
