"""`SqlVectorOutbox`: the vector outbox of a `SqlMemoryStore`, as the projector reads it.

The outbox is its own contract (`sinks.vector_outbox.VectorOutbox`), not part of the whole store's:
pending rows, tombstones and the backlog are read here, over the store's engine, with
`sinks.sql.projection`'s statements. It remembers the version of each row it handed out, so a row
changed again meanwhile stays pending when marked; `of(store)` is the one outbox of a store, so
whoever marks a row checks the version that was handed out.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence

import sqlalchemy as sa

from sinks.base import PendingEpisodeVector, PendingVector
from sinks.sql import episode_queries, projection, queries
from sinks.sql.convert import decode_embedding, row_episode, row_memory
from sinks.sql.engine import unavailable_on_outage, write_transaction
from sinks.sql.store import SqlMemoryStore
from sinks.sql.tables import episodes, memories
from sinks.vector_outbox import Backlog, Tombstone

_OUTBOXES: weakref.WeakKeyDictionary[SqlMemoryStore, SqlVectorOutbox] = weakref.WeakKeyDictionary()


class SqlVectorOutbox:
    """The `VectorOutbox` over a started store (same engine, same pool)."""

    def __init__(self, store: SqlMemoryStore) -> None:
        self._engine = store._engine
        self._vector_versions: dict[str, int] = {}  # handed out by pending_vectors, checked when marked
        self._episode_versions: dict[str, int] = {}  # the same, for pending_episode_vectors

    @classmethod
    def of(cls, store: SqlMemoryStore) -> SqlVectorOutbox:
        """The store's outbox: the same one at every call, so handed-out versions are kept."""
        outbox = _OUTBOXES.get(store)
        if outbox is None:
            outbox = _OUTBOXES[store] = cls(store)
        return outbox

    async def pending_vectors(self, limit: int = 1000) -> list[PendingVector]:
        stmt = (
            queries.select_with_embeddings(memories.c.vector_version)
            .where(memories.c.vector_dirty == sa.true())
            .order_by(memories.c.created_at, memories.c.id)
            .limit(limit)
        )
        async with unavailable_on_outage("pending_vectors"), self._engine.connect() as conn:
            rows = (await conn.execute(stmt)).mappings().all()
        for row in rows:
            self._vector_versions[row["id"]] = row["vector_version"]
        return [PendingVector(row_memory(row), decode_embedding(row["embedding"])) for row in rows]

    async def mark_vectors_synced(self, memory_ids: Sequence[str]) -> None:
        """Clear the dirty flag, unless the row changed again since `pending_vectors` handed it out."""
        if not memory_ids:
            return
        versioned, unversioned = _split(memory_ids, self._vector_versions)
        async with unavailable_on_outage("mark_vectors_synced"), write_transaction(self._engine) as conn:
            await projection.mark_synced(conn, memories, versioned, unversioned)

    async def pending_episode_vectors(self, limit: int = 1000) -> list[PendingEpisodeVector]:
        async with unavailable_on_outage("pending_episode_vectors"), self._engine.connect() as conn:
            rows = (await conn.execute(episode_queries.pending_vectors_statement(limit))).mappings().all()
        for row in rows:
            self._episode_versions[row["id"]] = row["vector_version"]
        return [PendingEpisodeVector(row_episode(row), decode_embedding(row["embedding"])) for row in rows]

    async def mark_episode_vectors_synced(self, episode_ids: Sequence[str]) -> None:
        """Clear the dirty flag, unless the row changed again since it was handed out."""
        if not episode_ids:
            return
        versioned, unversioned = _split(episode_ids, self._episode_versions)
        async with unavailable_on_outage("mark_episode_vectors_synced"), write_transaction(self._engine) as conn:
            await projection.mark_synced(conn, episodes, versioned, unversioned)

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


def _split(ids: Sequence[str], versions: dict[str, int]) -> tuple[list[dict], list[str]]:
    """The ids whose handed-out version is known (as `b_id`/`b_version` parameters, forgotten here),
    and the others (marked whatever their version)."""
    versioned = [{"b_id": i, "b_version": versions.pop(i)} for i in ids if i in versions]
    handled = {row["b_id"] for row in versioned}
    return versioned, [i for i in ids if i not in handled]
