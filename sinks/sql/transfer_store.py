"""The portability side of `SqlMemoryStore`: import of an export, and the reads export and reindex need.

`import_user` writes one user's imported rows (memories, episodes, contested pairs) in one
transaction through the store's own `_apply` (rows, outbox events and vector bookkeeping exactly as
a write), after `beliefs.import_plan` has reconciled the user's current beliefs against the
target's. `export_snapshot` holds the export's reads in one transaction (`sinks.sql.snapshot`).
`vector_points` pages through every row that has a vector point to keep (memories and
episodes with an embedding), each with the payload SQL says its point must carry: what `beliefstream
reindex` compares the index against.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager

import sqlalchemy as sa

from beliefs.contested import ContestedSlot
from beliefs.episodes import Episode
from beliefs.import_plan import Embedding, ImportCounts, plan_import
from beliefs.records import Memory, utcnow
from beliefs.write_plan import BeliefView, slot_key, text_key
from sinks.base import EPISODE_KIND, MEMORY_KIND, VectorPoint, episode_payload, vector_payload
from sinks.sql import queries, snapshot
from sinks.sql.convert import decode_embedding, row_episode, row_memory
from sinks.sql.engine import read_snapshot, unavailable_on_outage, write_transaction
from sinks.sql.episode_queries import EPISODE_COLUMNS
from sinks.sql.errors import InvalidRequestError
from sinks.sql.snapshot import SqlExportSnapshot
from sinks.sql.tables import contested_slots, episode_embeddings, episodes, memories, memory_embeddings

#: Point kinds in the order `vector_points` walks them.
POINT_KINDS = (MEMORY_KIND, EPISODE_KIND)


class TransferStoreMixin:
    """Import and scan methods of `SqlMemoryStore` (which provides `_engine` and `_apply`, the write
    path's one way of writing a `WritePlan`: rows, outbox events and vector bookkeeping)."""

    async def import_user(
        self,
        memories_: Sequence[tuple[Memory, Embedding]],
        episodes_: Sequence[tuple[Episode, Embedding]],
        contested: Sequence[ContestedSlot] = (),
    ) -> ImportCounts:
        """Import one user's exported rows (`beliefs.import_plan`); ids already stored are skipped."""
        rows = [*(r for r, _ in memories_), *(r for r, _ in episodes_), *contested]
        owners = {(r.tenant_id, r.user_id) for r in rows}
        if len(owners) > 1:
            raise InvalidRequestError(f"import_user takes the rows of one user, got {len(owners)} users")
        if not owners:
            return ImportCounts()
        [(tenant_id, _)] = owners
        async with unavailable_on_outage("import_user"), write_transaction(self._engine) as conn:
            stored = await queries.existing_memory_ids(conn, [(tenant_id, m.id) for m, _ in memories_])
            stored |= await _existing_ids(conn, episodes, tenant_id, [e.id for e, _ in episodes_])
            stored |= await _existing_ids(conn, contested_slots, tenant_id, [s.id for s in contested])
            current = [m for m, _ in memories_ if m.is_current and m.id not in stored]
            in_file = {m.id for m, _ in memories_}
            slots = list(dict.fromkeys(key for m in current if (key := slot_key(m)) is not None))
            texts = list(dict.fromkeys(text_key(m) for m in current))
            found = await queries.load_active(conn, slots, texts) if current else []
            target = BeliefView(m for m in found if m.id not in in_file)
            planned = plan_import(memories_, episodes_, contested, stored_ids=stored, target=target, now=utcnow())
            await self._apply(conn, planned.plan)
        return planned.counts

    async def known_ids(self, tenant_id: str, ids: Sequence[str]) -> set[str]:
        """Those of `ids` (memories, episodes, contested pairs) the tenant already has: an importer
        skips them before embedding anything (`import_user` checks again in its transaction)."""
        found: set[str] = set()
        async with unavailable_on_outage("known_ids"), self._engine.connect() as conn:
            for table in (memories, episodes, contested_slots):
                found |= await _existing_ids(conn, table, tenant_id, ids)
        return found

    @asynccontextmanager
    async def export_snapshot(self) -> AsyncIterator[SqlExportSnapshot]:
        """The export's reads, all in one read transaction: a write committed meanwhile is not seen."""
        async with AsyncExitStack() as stack:
            async with unavailable_on_outage("export"):  # opening it; not what the caller does with it
                conn = await stack.enter_async_context(read_snapshot(self._engine))
            yield SqlExportSnapshot(conn)

    async def tenants_and_users(self, tenant_id: str | None = None) -> list[tuple[str, str]]:
        """Every (tenant, user) with a memory or an episode, in order; of one tenant if given."""
        async with unavailable_on_outage("tenants_and_users"), self._engine.connect() as conn:
            return await snapshot.owners(conn, tenant_id)

    async def vector_points(self, kind: str, after: str | None, limit: int) -> list[VectorPoint]:
        """One page, by id, of the `kind` rows (memory or episode) that have an embedding, as points."""
        table, join = _source(kind)
        stmt = _point_rows(kind).order_by(table.c.id).limit(limit)
        if after is not None:
            stmt = stmt.where(table.c.id > after)
        async with unavailable_on_outage("vector_points"), self._engine.connect() as conn:
            rows = (await conn.execute(stmt)).mappings().all()
        return [_point(kind, row) for row in rows]

    async def point_ids(self, kind: str, after: str | None, limit: int) -> list[str]:
        """One page, by id, of the ids of the `kind` rows that have an embedding (what `vector_points`
        pages through, without reading the embeddings)."""
        table, join = _source(kind)
        key = memory_embeddings.c.memory_id if kind == MEMORY_KIND else episode_embeddings.c.episode_id
        stmt = sa.select(table.c.id).select_from(table.join(join, key == table.c.id)).order_by(table.c.id).limit(limit)
        if after is not None:
            stmt = stmt.where(table.c.id > after)
        async with unavailable_on_outage("point_ids"), self._engine.connect() as conn:
            return list((await conn.scalars(stmt)).all())

    async def vector_points_of(self, ids: Sequence[str]) -> list[VectorPoint]:
        """The points SQL says these ids (memories or episodes) must have; ids without one are left out."""
        found: list[VectorPoint] = []
        async with unavailable_on_outage("vector_points_of"), self._engine.connect() as conn:
            for kind in POINT_KINDS:
                table, _ = _source(kind)
                for part in queries.chunked(list(ids)):
                    rows = (await conn.execute(_point_rows(kind).where(table.c.id.in_(part)))).mappings().all()
                    found += [_point(kind, row) for row in rows]
        return found


def _source(kind: str) -> tuple[sa.Table, sa.Table]:
    if kind == MEMORY_KIND:
        return memories, memory_embeddings
    if kind == EPISODE_KIND:
        return episodes, episode_embeddings
    raise InvalidRequestError(f"no vector points of kind {kind!r}; expected one of {POINT_KINDS}")


def _point_rows(kind: str) -> sa.Select:
    """The rows of `kind` joined to their embeddings (rows without one have no point)."""
    if kind == MEMORY_KIND:
        joined = memories.join(memory_embeddings, memory_embeddings.c.memory_id == memories.c.id)
        return sa.select(*queries.MEMORY_COLUMNS, memory_embeddings.c.embedding).select_from(joined)
    joined = episodes.join(episode_embeddings, episode_embeddings.c.episode_id == episodes.c.id)
    return sa.select(*EPISODE_COLUMNS, episode_embeddings.c.embedding).select_from(joined)


def _point(kind: str, row) -> VectorPoint:
    vector = decode_embedding(row["embedding"]) or []
    if kind == MEMORY_KIND:
        memory = row_memory(row)
        return VectorPoint(memory.id, vector, vector_payload(memory))
    episode = row_episode(row)
    return VectorPoint(episode.id, vector, episode_payload(episode))


async def _existing_ids(conn, table: sa.Table, tenant_id: str, ids: Sequence[str]) -> set[str]:
    found: set[str] = set()
    for part in queries.chunked(list(dict.fromkeys(ids))):
        stmt = sa.select(table.c.id).where(table.c.tenant_id == tenant_id, table.c.id.in_(part))
        found |= set((await conn.scalars(stmt)).all())
    return found
