"""The vector projector over a real store and index, for tests of write paths that owe it points.

`projector_of(store, vectors)` is the projector a process would run; `index_matches_sql` checks that
the index holds exactly the points SQL says it should (ids and payloads), after a drain;
`DownIndex` is a real shard behind an outage switch.
"""

from __future__ import annotations

from collections.abc import Sequence

import qdrant_edge as edge
import sqlalchemy as sa

from agents.projector import VectorProjector
from sinks.base import VectorIndex, VectorPoint, episode_payload, vector_payload
from sinks.errors import SinkUnavailableError
from sinks.sql.convert import row_episode, row_memory
from sinks.sql.episode_queries import EPISODE_COLUMNS
from sinks.sql.store import SqlMemoryStore
from sinks.sql.tables import episode_embeddings, episodes, memories, memory_embeddings
from sinks.sql.vector_outbox import SqlVectorOutbox
from sinks.vectors import qdrant_filters
from sinks.vectors.edge import EdgeVectorIndex


class DownIndex:
    """The real shard behind a switch: while `down`, every write raises like an unreachable index."""

    def __init__(self, inner: EdgeVectorIndex) -> None:
        self.inner, self.down, self.refused = inner, False, 0

    def _check(self) -> None:
        if self.down:
            self.refused += 1
            raise SinkUnavailableError("vector index down (test)")

    async def write(self, points: Sequence[VectorPoint]) -> None:
        self._check()
        await self.inner.write(points)

    async def delete(self, ids: Sequence[str]) -> None:
        self._check()
        await self.inner.delete(ids)

    def __getattr__(self, name: str):
        return getattr(self.inner, name)


def projector_of(store: SqlMemoryStore, vectors: VectorIndex, **options) -> VectorProjector:
    """A projector with test-sized retries (no sleeping in the tests' timeline)."""
    options.setdefault("retry_initial_s", 0.01)
    options.setdefault("retry_max_s", 0.05)
    options.setdefault("poll_s", 0.05)
    return VectorProjector(SqlVectorOutbox.of(store), vectors, **options)


async def expected_points(store: SqlMemoryStore, tenant_id: str) -> dict[str, dict]:
    """Every point SQL says the index holds for the tenant: id → payload (rows with an embedding)."""
    found: dict[str, dict] = {}
    async with store._engine.connect() as conn:
        stmt = sa.select(memories).join(memory_embeddings, memory_embeddings.c.memory_id == memories.c.id)
        for row in (await conn.execute(stmt.where(memories.c.tenant_id == tenant_id))).mappings():
            memory = row_memory(row)
            found[memory.id] = vector_payload(memory)
        stmt = sa.select(*EPISODE_COLUMNS).join(episode_embeddings, episode_embeddings.c.episode_id == episodes.c.id)
        for row in (await conn.execute(stmt.where(episodes.c.tenant_id == tenant_id))).mappings():
            episode = row_episode(row)
            found[episode.id] = episode_payload(episode)
    return found


async def indexed_points(vectors: EdgeVectorIndex, tenant_id: str) -> dict[str, dict]:
    """Every point the Edge shard holds for the tenant: id → payload (as `expected_points` has it)."""
    request = edge.ScrollRequest(
        limit=100_000,
        filter=qdrant_filters.tenant_filter(tenant_id, edge),
        with_payload=True,
        with_vector=False,
    )
    records, _ = await vectors._with_shard(lambda shard: shard.scroll(request))
    found = {}
    for record in records:
        payload = dict(record.payload)
        found[payload.pop(qdrant_filters.MEMORY_ID_KEY)] = payload
    return found


async def index_matches_sql(store: SqlMemoryStore, vectors: EdgeVectorIndex, tenant_id: str) -> bool:
    """The index holds exactly SQL's points of the tenant, each with its current payload."""
    return await indexed_points(vectors, tenant_id) == await expected_points(store, tenant_id)
