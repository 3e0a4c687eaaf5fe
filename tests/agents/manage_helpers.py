"""Helpers of the manage-phase tests: rows seeded straight into SQL, and a recording vector index."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa

from beliefs.records import Memory
from sinks.base import VectorFilter, VectorHit, VectorPoint
from sinks.errors import SinkUnavailableError
from sinks.sql import queries
from sinks.sql.convert import row_memory
from sinks.sql.engine import write_transaction
from sinks.sql.store import SqlMemoryStore
from sinks.sql.tables import memories, memory_embeddings, outbox


async def seed(store: SqlMemoryStore, rows: Sequence[tuple[Memory, Sequence[float] | None]]) -> None:
    """Insert rows as they are, without reconcile (the manage phase meets whatever is stored)."""
    async with write_transaction(store._engine) as conn:
        await queries.insert_memories(conn, rows)


async def stored(store: SqlMemoryStore, tenant_id: str) -> dict[str, Memory]:
    async with store._engine.connect() as conn:
        result = await conn.execute(
            sa.select(*queries.MEMORY_COLUMNS).where(memories.c.tenant_id == tenant_id)
        )
        return {row["id"]: row_memory(row) for row in result.mappings()}


async def column(store: SqlMemoryStore, name: str, ids: Sequence[str]) -> dict[str, object]:
    async with store._engine.connect() as conn:
        stmt = sa.select(memories.c.id, memories.c[name]).where(memories.c.id.in_(list(ids)))
        return {row[0]: row[1] for row in await conn.execute(stmt)}


async def embeddings(store: SqlMemoryStore, ids: Sequence[str]) -> dict[str, bytes]:
    """The stored embeddings of these memories (a memory without one is absent)."""
    async with store._engine.connect() as conn:
        stmt = sa.select(memory_embeddings.c.memory_id, memory_embeddings.c.embedding).where(
            memory_embeddings.c.memory_id.in_(list(ids))
        )
        return {row[0]: row[1] for row in await conn.execute(stmt)}


async def outbox_events(store: SqlMemoryStore, tenant_id: str) -> list[bytes]:
    async with store._engine.connect() as conn:
        stmt = sa.select(outbox.c.value).where(outbox.c.key.like(f"{tenant_id}:%")).order_by(outbox.c.seq)
        return [bytes(v) for v in (await conn.scalars(stmt)).all()]


class RecordingVectors:
    """A `VectorIndex` that remembers writes and payload updates; `failing` raises like an outage."""

    def __init__(self) -> None:
        self.points: dict[str, VectorPoint] = {}
        self.payloads: dict[str, dict] = {}
        self.payload_calls = 0
        self.failing = False

    async def setup(self) -> None: ...

    async def close(self) -> None: ...

    async def write(self, points: Sequence[VectorPoint]) -> None:
        self._check()
        self.points.update((p.id, p) for p in points)

    async def set_payload(self, payloads: dict[str, dict]) -> None:
        self._check()
        self.payload_calls += 1
        for memory_id, payload in payloads.items():
            self.payloads.setdefault(memory_id, {}).update(payload)

    async def delete(self, ids: Sequence[str]) -> None:
        self._check()
        for point_id in ids:
            self.points.pop(point_id, None)
            self.payloads.pop(point_id, None)

    def payload(self, point_id: str) -> dict:
        """The payload the point holds now: as last written, with later payload updates."""
        return {**self.points[point_id].payload, **self.payloads.get(point_id, {})}

    async def search(self, vector: Sequence[float], scope: VectorFilter, limit: int) -> list[VectorHit]:
        return []

    async def count(self, tenant_id: str | None = None) -> int:
        return len(self.points)

    async def ping(self) -> bool:
        return not self.failing

    def _check(self) -> None:
        if self.failing:
            raise SinkUnavailableError("vector index down (test)")
