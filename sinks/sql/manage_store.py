"""`MaintenanceStore`: the manage phase's contracts (`sinks.manage`) over the SQL store.

It shares the `SqlMemoryStore`'s engine (one pool, one SQLite lock) but keeps the manage phase's
statements out of the write path's store: `sinks.sql.decay`, `sinks.sql.consolidation` and
`sinks.sql.keyword_index` hold them. Every method turns a driver outage into `SinkUnavailableError`, like the store.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from beliefs.records import Memory, utcnow
from sinks.manage import DecayRows, MergeWrite
from sinks.reach import EVERY_AGENT, Reach
from sinks.sql import consolidation, decay, episode_queries, keyword_index
from sinks.sql.engine import unavailable_on_outage, write_transaction
from sinks.sql.errors import InvalidRequestError
from sinks.sql.queries import Users
from sinks.sql.store import SqlMemoryStore


class DecayWriter:
    """The writes of one decay batch, inside one transaction the caller holds open."""

    def __init__(self, conn: AsyncConnection) -> None:
        self._conn = conn

    async def write_scores(self, ids: Sequence[str], scores: Sequence[float]) -> None:
        await decay.write_scores(self._conn, ids, scores)

    async def expire(self, ids: Sequence[str], now: datetime) -> list[str]:
        return await decay.expire(self._conn, ids, now)

    async def owe_points(self, ids: Sequence[str]) -> int:
        """The vector points of `ids` must follow (the projector rewrites them); how many there are."""
        return await decay.owe_points(self._conn, ids)


class MaintenanceStore:
    """`DecayStore`, `EpisodeRetentionStore`, `ConsolidationStore` and `KeywordIndexStore`
    (`sinks.manage`) over an async engine (usually a `SqlMemoryStore`'s)."""

    def __init__(self, engine: AsyncEngine, events_topic: str = "beliefstream.memory.events") -> None:
        self._engine = engine
        self.events_topic = events_topic

    @classmethod
    def of(cls, store: SqlMemoryStore) -> MaintenanceStore:
        """The maintenance side of a started store: same engine, same events topic."""
        return cls(store._engine, store.events_topic)

    # -- decay ------------------------------------------------------------------------------------

    async def scan_active(
        self,
        after_id: str | None,
        limit: int,
        now: datetime,
        tenant_id: str | None = None,
        users: Users | None = None,
    ) -> DecayRows:
        """One keyset page of active rows (ids ascending; one tenant's, some users', or all) with
        their decay inputs."""
        if limit < 1:
            raise InvalidRequestError(f"limit must be at least 1, got {limit}")
        async with unavailable_on_outage("decay scan"), self._engine.connect() as conn:
            return await decay.scan_active(conn, after_id, limit, now, tenant_id, users)

    async def active_users(
        self, after: tuple[str, str] | None, limit: int, tenant_id: str | None = None
    ) -> list[tuple[str, str]]:
        """One keyset page of the (tenant, user) pairs (of one tenant, or all) holding an active
        memory, after `after`."""
        if limit < 1:
            raise InvalidRequestError(f"limit must be at least 1, got {limit}")
        async with unavailable_on_outage("decay users"), self._engine.connect() as conn:
            return await decay.active_users(conn, after, limit, tenant_id)

    @asynccontextmanager
    async def decay_writer(self) -> AsyncIterator[DecayWriter]:
        """A write transaction for one batch; it commits when the block exits without error."""
        async with unavailable_on_outage("decay write"), write_transaction(self._engine) as conn:
            yield DecayWriter(conn)

    # -- episode retention ------------------------------------------------------------------------

    async def expired_episode_ids(
        self, now: datetime, limit: int, tenant_id: str | None = None, users: Users | None = None
    ) -> list[str]:
        """Ids of episodes whose `expires_at` has passed at `now`, at most `limit`."""
        async with unavailable_on_outage("episode retention scan"), self._engine.connect() as conn:
            return await episode_queries.expired_ids(conn, now, limit, tenant_id, users)

    async def delete_episodes(self, ids: Sequence[str]) -> None:
        async with unavailable_on_outage("episode retention delete"), write_transaction(self._engine) as conn:
            await episode_queries.delete(conn, ids)

    # -- consolidation ----------------------------------------------------------------------------

    async def consolidation_candidates(
        self, tenant_id: str, topic: str, user_id: str | None = None, reach: Reach = EVERY_AGENT
    ) -> list[tuple[Memory, list[float] | None]]:
        """Active memories of a topic within `reach`, with their stored embeddings (None where never embedded)."""
        async with unavailable_on_outage("consolidation load"), self._engine.connect() as conn:
            return await consolidation.load_candidates(conn, tenant_id, topic, user_id, reach)

    async def consolidation_scopes(
        self, tenant_id: str | None = None, users: Users | None = None
    ) -> list[tuple[str, str, str]]:
        """(tenant, user, topic) triples (of one tenant, of some users, or all) holding at least two
        active memories."""
        async with unavailable_on_outage("consolidation scopes"), self._engine.connect() as conn:
            return await consolidation.scopes(conn, tenant_id, users)

    async def write_merges(self, tenant_id: str, merges: Sequence[MergeWrite]) -> list[MergeWrite]:
        """One transaction: the merges whose originals are all still active; answers those written."""
        if not merges:
            return []
        async with unavailable_on_outage("consolidation write"), write_transaction(self._engine) as conn:
            return await consolidation.write_merges(conn, tenant_id, merges, self.events_topic, utcnow())

    # -- keyword index segments ---------------------------------------------------------------------

    def keyword_indexes(self) -> tuple[str, ...]:
        """The keyword indexes that take merging: SQLite's FTS5 tables; none on PostgreSQL."""
        return keyword_index.KEYWORD_INDEXES if self._engine.dialect.name == "sqlite" else ()

    async def keyword_segments(self, index: str) -> int:
        async with unavailable_on_outage("keyword index segments"), self._engine.connect() as conn:
            return await keyword_index.segments(conn, index)

    async def merge_keyword_index(self, index: str, pages: int, *, first: bool) -> bool:
        """One merge step in its own short write transaction; whether there was anything to merge."""
        async with unavailable_on_outage("keyword index merge"), write_transaction(self._engine) as conn:
            return await keyword_index.merge_step(conn, index, pages, first=first)
