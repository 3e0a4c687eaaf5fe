"""The embedded vector index: a Qdrant Edge shard in a directory, owned by one process.

`EdgeShard` is synchronous and single-owner, so every call goes through one dedicated worker
thread: calls never overlap and the event loop never blocks on the index. The shard holds a file
lock on its write-ahead log; a second process opening the same directory fails, and we say so.

Search reads no payload when it can: fetching the `memory_id` payload key of every candidate costs
more than the search itself (`docs/benchmarks.md`, recall), and a memory id that is a canonical UUID (every id `memory_id_for` makes) is its own point id. A marker file in the shard
directory says "every id written here is its own point id": an empty shard gets it at setup, and
the first write of any other id removes it before the point goes in (so a crash cannot leave a
wrong marker); a shard without it (older ones included) reads the payload as before.

Searches started in the same event-loop pass (a recall's memory and episode searches, and those of
concurrent recalls) go to the worker together as one `query_batch`: one thread trip, and Edge plans
them as one pass; each search gets the hits it would have got alone.

Vectors are stored as float16 in a new shard: half of float32's size, so a large shard stays in the
page cache beside the SQL store, and on real MiniLM embeddings the top 10 came out in the same order
as with float32 (`docs/benchmarks.md`, "Vector index"; its history in git). A shard created before keeps the datatype its stored config names: Edge
refuses to load a shard under another one.

Durability: every update is in the WAL when `update()` returns, and a process killed without
`flush()` recovers its points from the WAL on the next open (observed with qdrant-edge-py 0.9).
`close()` flushes the segments, so a clean restart does not replay the WAL.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import qdrant_edge as edge

from sinks.base import VectorFilter, VectorHit, VectorPoint
from sinks.errors import SinkError, SinkUnavailableError
from sinks.vectors import qdrant_filters

T = TypeVar("T")

_CONFIG_FILE = "edge_config.json"
#: The vector storage of a new shard; an existing shard keeps the one its config names.
NEW_SHARD_DATATYPE = edge.VectorStorageDatatype.Float16
_DATATYPES = {"float32": edge.VectorStorageDatatype.Float32, "float16": edge.VectorStorageDatatype.Float16}
#: Present while every memory id written to the shard is its own point id (searches skip payloads).
_POINT_IDS_FILE = "memory_ids_are_point_ids"
_LOCKED_MARKERS = ("WouldBlock", "Resource temporarily unavailable")


class EdgeVectorIndex:
    """`VectorIndex` over an embedded Qdrant Edge shard under `path` (cosine, HNSW, keyword indexes)."""

    def __init__(self, path: Path, dim: int = 384, *, max_search_threads: int | None = None) -> None:
        if dim < 1:
            raise ValueError(f"dim must be at least 1, got {dim}")
        self.path = Path(path)
        self.dim = dim
        self._max_search_threads = max_search_threads
        self._shard: edge.EdgeShard | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._ids_are_points = False  # until setup() has looked for the marker
        self._queued: list[tuple[edge.QueryRequest, asyncio.Future[list[Any]]]] = []  # searches of this loop pass

    async def setup(self) -> None:
        """Open the shard (create it on first use) and make sure the payload indexes exist."""
        if self._shard is not None:
            return
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="beliefstream-edge")
        try:
            self._shard = await self._call(self._open)
            self._ids_are_points = await self._call(self._check_point_ids)
        except BaseException:
            executor, self._executor = self._executor, None
            executor.shutdown(wait=False)
            raise

    async def close(self) -> None:
        """Flush and release the shard (and its lock); safe to call twice."""
        shard, self._shard = self._shard, None
        executor, self._executor = self._executor, None
        if executor is None:
            return
        try:
            if shard is not None:
                await asyncio.get_running_loop().run_in_executor(executor, _flush_and_close, shard)
        finally:
            executor.shutdown(wait=True)

    async def write(self, points: Sequence[VectorPoint]) -> None:
        """Upsert points by id; the same point written twice is one point."""
        if not points:
            return
        batch = [
            edge.Point(
                qdrant_filters.point_id(p.id),
                qdrant_filters.checked_vector(p.vector, self.dim),
                qdrant_filters.point_payload(p.id, p.payload),
            )
            for p in points
        ]
        if self._ids_are_points and not all(qdrant_filters.is_point_id(p.id) for p in points):
            self._ids_are_points = False  # at once: a search built from now on reads payloads
            await self._call(self._drop_point_ids_marker)
        await self._update(edge.UpdateOperation.upsert_points(batch))

    async def set_payload(self, payloads: dict[str, dict]) -> None:
        """Overwrite the given keys on existing points; ids with no point yet are skipped."""
        for payload, ids in qdrant_filters.group_payloads(payloads):
            only_these = edge.Filter(must=[edge.HasIdCondition(set(ids))])
            await self._update(edge.UpdateOperation.set_payload_by_filter(only_these, payload))

    async def delete(self, ids: Sequence[str]) -> None:
        if ids:
            await self._update(edge.UpdateOperation.delete_points([qdrant_filters.point_id(i) for i in ids]))

    async def search(self, vector: Sequence[float], scope: VectorFilter, limit: int) -> list[VectorHit]:
        """Nearest points inside `scope` (the scope is part of the query, not a post-filter)."""
        query = qdrant_filters.search_vector(vector, scope, limit, self.dim)
        if query is None:
            return []
        request = edge.QueryRequest(
            limit=limit,
            query=edge.Query.Nearest(query),
            filter=qdrant_filters.scope_filter(scope, edge),
            with_payload=False if self._ids_are_points else [qdrant_filters.MEMORY_ID_KEY],
            with_vector=False,
        )
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[list[Any]] = loop.create_future()
        self._queued.append((request, answer))
        if len(self._queued) == 1:  # the first of this loop pass: the others join it
            loop.call_soon(self._query_queued)
        found = await answer
        return [qdrant_filters.to_hit(p) for p in found]

    def _query_queued(self) -> None:
        """Run the searches queued in one loop pass as one `query_batch`: one trip to the worker
        thread, one planned pass over the segments. A failing batch fails each of its searches."""
        queued, self._queued = self._queued, []
        shard, executor = self._shard, self._executor
        if shard is None:
            return _fail(queued, SinkUnavailableError(f"the vector index at {self.path} is not open: call setup() first"))
        if executor is None:
            return _fail(queued, SinkUnavailableError(f"the vector index at {self.path} is closed"))
        batch = edge.QueryBatchRequest([request for request, _ in queued])

        def run() -> list[list[Any]]:
            try:
                return shard.query_batch(batch)
            except Exception as exc:  # qdrant_edge raises bare Exception
                raise SinkError(f"vector index at {self.path}: {exc}") from exc

        def answer(done: asyncio.Future[list[list[Any]]]) -> None:
            error = done.exception()
            for i, (_, future) in enumerate(queued):
                if future.done():  # its caller gave up
                    continue
                if error is not None:
                    future.set_exception(error)
                else:
                    future.set_result(done.result()[i])

        try:
            trip = asyncio.get_running_loop().run_in_executor(executor, run)
        except RuntimeError as exc:  # the executor shut down meanwhile
            return _fail(queued, SinkUnavailableError(f"the vector index at {self.path} is closed: {exc}"))
        trip.add_done_callback(answer)

    async def count(self, tenant_id: str | None = None) -> int:
        request = edge.CountRequest(exact=True, filter=qdrant_filters.tenant_filter(tenant_id, edge))
        return await self._with_shard(lambda shard: shard.count(request))

    async def scroll(
        self, offset: str | None, limit: int, with_vectors: bool = False
    ) -> tuple[list[VectorPoint], str | None]:
        """One page of stored points in point-id order (payload; the vector as stored if asked), and the
        next page's offset."""
        request = edge.ScrollRequest(
            offset=None if offset is None else uuid.UUID(offset),
            limit=limit,
            with_payload=True,
            with_vector=with_vectors,
        )
        records, following = await self._with_shard(lambda shard: shard.scroll(request))
        return [qdrant_filters.to_stored(r) for r in records], None if following is None else str(following)

    async def ping(self) -> bool:
        """True when the shard is open and answers."""
        if self._shard is None:
            return False
        try:
            await self._with_shard(lambda shard: shard.info())
        except SinkError:
            return False
        return True

    async def optimize(self) -> bool:
        """Build HNSW segments now (Edge runs no background optimizer); True if anything changed."""
        return await self._with_shard(lambda shard: shard.optimize())

    def _open(self) -> edge.EdgeShard:
        config = edge.EdgeConfig(
            vectors=edge.EdgeVectorParams(
                size=self.dim, distance=edge.Distance.Cosine, datatype=_stored_datatype(self.path / _CONFIG_FILE)
            ),
            hnsw_config=edge.HnswIndexConfig(m=16, ef_construct=100, full_scan_threshold=10_000),
            max_search_threads=self._max_search_threads,
        )
        try:
            if (self.path / _CONFIG_FILE).exists():
                shard = edge.EdgeShard.load(str(self.path), config)
            else:
                self.path.mkdir(parents=True, exist_ok=True)
                shard = edge.EdgeShard.create(str(self.path), config)
        except Exception as exc:  # qdrant_edge raises bare Exception; the message tells what
            raise _open_error(self.path, exc) from exc
        try:
            _ensure_payload_indexes(shard)
        except Exception as exc:
            shard.close()
            raise SinkUnavailableError(f"cannot index the vector payload at {self.path}: {exc}") from exc
        return shard

    def _check_point_ids(self) -> bool:
        """Whether hits can skip the payload: the marker is there, or the shard is empty (marked now)."""
        marker = self.path / _POINT_IDS_FILE
        if not marker.exists() and self._shard is not None and self._shard.info().points_count == 0:
            marker.touch()
        return marker.exists()

    def _drop_point_ids_marker(self) -> None:
        (self.path / _POINT_IDS_FILE).unlink(missing_ok=True)

    async def _update(self, operation: edge.UpdateOperation) -> None:
        await self._with_shard(lambda shard: shard.update(operation))

    async def _with_shard(self, action: Callable[[edge.EdgeShard], T]) -> T:
        shard = self._shard
        if shard is None:
            raise SinkUnavailableError(f"the vector index at {self.path} is not open: call setup() first")

        def run() -> T:
            try:
                return action(shard)
            except Exception as exc:  # qdrant_edge raises bare Exception
                raise SinkError(f"vector index at {self.path}: {exc}") from exc

        return await self._call(run)

    async def _call(self, fn: Callable[[], T]) -> T:
        if self._executor is None:
            raise SinkUnavailableError(f"the vector index at {self.path} is closed")
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn)


def _fail(queued: Sequence[tuple[Any, asyncio.Future[Any]]], error: Exception) -> None:
    for _, future in queued:
        if not future.done():
            future.set_exception(error)


def _ensure_payload_indexes(shard: edge.EdgeShard) -> None:
    """Keyword indexes on the scope fields; `tenant_id` also partitions storage by tenant."""
    present = set(shard.info().payload_schema)
    for field in qdrant_filters.INDEXED_FIELDS:
        if field in present:
            continue
        is_tenant = field == qdrant_filters.TENANT_FIELD
        schema: Any = edge.KeywordIndexParams(is_tenant=True) if is_tenant else edge.PayloadSchemaType.Keyword
        shard.update(edge.UpdateOperation.create_field_index(field, schema))


def _open_error(path: Path, exc: Exception) -> SinkUnavailableError:
    message = str(exc)
    if any(marker in message for marker in _LOCKED_MARKERS):
        return SinkUnavailableError(
            f"another beliefstream process owns the vector index at {path} "
            f"(stop it, give this process its own data dir, or run it with BELIEFSTREAM_VECTOR_PROJECTOR=off "
            f"to write SQL only and leave the index to its owner): {message}"
        )
    return SinkUnavailableError(f"cannot open the vector index at {path}: {message}")


def _flush_and_close(shard: edge.EdgeShard) -> None:
    try:
        shard.flush()
    finally:
        shard.close()


def _stored_datatype(config_file: Path) -> edge.VectorStorageDatatype:
    """The vector datatype of the shard whose config this is (Edge writes none for float32)."""
    try:
        stored = json.loads(config_file.read_text())
    except FileNotFoundError:
        return NEW_SHARD_DATATYPE
    except (OSError, ValueError) as exc:
        raise SinkUnavailableError(f"cannot read the vector index config {config_file}: {exc}") from exc
    name = stored.get("vectors", {}).get("", {}).get("datatype", "float32")
    if name not in _DATATYPES:
        raise SinkUnavailableError(
            f"the vector index at {config_file.parent} stores {name} vectors; expected float32 or float16"
        )
    return _DATATYPES[name]
