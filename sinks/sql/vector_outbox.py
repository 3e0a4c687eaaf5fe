"""`SqlVectorOutbox`: the vector outbox of a `SqlMemoryStore`, as the projector reads it.

Pending rows come from the store (it remembers the version it handed out, so a row changed again
meanwhile stays pending); tombstones and the backlog from `sinks.sql.projection`'s statements.
"""

from __future__ import annotations

from collections.abc import Sequence

from sinks.base import PendingEpisodeVector, PendingVector
from sinks.sql import projection
from sinks.sql.engine import unavailable_on_outage, write_transaction
from sinks.sql.store import SqlMemoryStore
from sinks.vector_outbox import Backlog, Tombstone


class SqlVectorOutbox:
    """The `VectorOutbox` over a started store (same engine, same pool)."""

    def __init__(self, store: SqlMemoryStore) -> None:
        self._store = store
        self._engine = store._engine

    @classmethod
    def of(cls, store: SqlMemoryStore) -> SqlVectorOutbox:
        return cls(store)

    async def pending_vectors(self, limit: int = 1000) -> list[PendingVector]:
        return await self._store.pending_vectors(limit)

    async def mark_vectors_synced(self, memory_ids: Sequence[str]) -> None:
        await self._store.mark_vectors_synced(memory_ids)

    async def pending_episode_vectors(self, limit: int = 1000) -> list[PendingEpisodeVector]:
        return await self._store.pending_episode_vectors(limit)

    async def mark_episode_vectors_synced(self, episode_ids: Sequence[str]) -> None:
        await self._store.mark_episode_vectors_synced(episode_ids)

    async def tombstones(self, limit: int = 1000) -> list[Tombstone]:
        async with unavailable_on_outage("vector tombstones"), self._engine.connect() as conn:
            found = await projection.tombstones(conn, limit)
            revived = await projection.living(conn, [point_id for _, point_id in found])
        return [Tombstone(seq, point_id, point_id in revived) for seq, point_id in found]

    async def clear_tombstones(self, seqs: Sequence[int]) -> None:
        if not seqs:
            return
        async with unavailable_on_outage("clear vector tombstones"), write_transaction(self._engine) as conn:
            await projection.clear_tombstones(conn, seqs)

    async def backlog(self) -> Backlog:
        async with unavailable_on_outage("vector backlog"), self._engine.connect() as conn:
            points, oldest = await projection.backlog(conn)
        return Backlog(points, oldest)
