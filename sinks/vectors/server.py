"""The vector index on a Qdrant server, through `qdrant_client.AsyncQdrantClient`.

Same semantics as the embedded Edge index. `location=":memory:"` runs qdrant-client's local mode
(used by tests; it has no payload indexes, so none are created there). A throttling server
(HTTP 429/503) raises `BackpressureError` with `retry_after`; a server that cannot be reached
raises `SinkUnavailableError`; anything else propagates.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import httpx
from qdrant_client import AsyncQdrantClient, models
from qdrant_client.common.client_exceptions import ResourceExhaustedResponse
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from sinks.base import VectorFilter, VectorHit, VectorPoint
from sinks.errors import BackpressureError, SinkError, SinkUnavailableError
from sinks.vectors import qdrant_filters

T = TypeVar("T")

DEFAULT_COLLECTION = "beliefstream_memories"
DEFAULT_RETRY_AFTER_S = 1.0
_THROTTLED = {429, 503}
_UNREACHABLE = {502, 504}


class QdrantServerIndex:
    """`VectorIndex` over one collection of a Qdrant server (or qdrant-client's local mode)."""

    def __init__(
        self,
        url: str | None = None,
        api_key: str | None = None,
        collection: str = DEFAULT_COLLECTION,
        dim: int = 384,
        location: str | None = None,
        timeout_s: int = 10,
    ) -> None:
        if (url is None) == (location is None):
            raise ValueError("give exactly one of url (a Qdrant server) or location (':memory:')")
        if dim < 1:
            raise ValueError(f"dim must be at least 1, got {dim}")
        self.url = url
        self.location = location
        self.collection = collection
        self.dim = dim
        self._api_key = api_key
        self._timeout_s = timeout_s
        self._client: AsyncQdrantClient | None = None

    @property
    def where(self) -> str:
        return f"{self.url or self.location}/{self.collection}"

    async def setup(self) -> None:
        """Connect, and create the collection and its payload indexes if they are missing."""
        if self._client is None:
            self._client = AsyncQdrantClient(
                url=self.url,
                location=self.location,
                api_key=self._api_key,
                timeout=self._timeout_s,
                check_compatibility=False,  # a blocking version probe in the constructor
            )
        await self._guarded(self._create_if_missing)

    async def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.close()

    async def write(self, points: Sequence[VectorPoint]) -> None:
        """Upsert points by id; the same point written twice is one point."""
        if not points:
            return
        batch = [
            models.PointStruct(
                id=qdrant_filters.point_id(p.id),
                vector=qdrant_filters.checked_vector(p.vector, self.dim),
                payload=qdrant_filters.point_payload(p.id, p.payload),
            )
            for p in points
        ]
        await self._guarded(lambda client: client.upsert(self.collection, points=batch, wait=True))

    async def set_payload(self, payloads: dict[str, dict]) -> None:
        """Overwrite the given keys on existing points; ids with no point yet are skipped."""
        operations = [
            models.SetPayloadOperation(
                set_payload=models.SetPayload(
                    payload=payload, filter=models.Filter(must=[models.HasIdCondition(has_id=ids)])
                )
            )
            for payload, ids in qdrant_filters.group_payloads(payloads)
        ]
        if operations:
            await self._guarded(
                lambda client: client.batch_update_points(self.collection, operations, wait=True)
            )

    async def delete(self, ids: Sequence[str]) -> None:
        if not ids:
            return
        selector = models.PointIdsList(points=[qdrant_filters.point_id(i) for i in ids])
        await self._guarded(
            lambda client: client.delete(self.collection, points_selector=selector, wait=True)
        )

    async def search(self, vector: Sequence[float], scope: VectorFilter, limit: int) -> list[VectorHit]:
        """Nearest points inside `scope` (the scope is part of the query, not a post-filter)."""
        query = qdrant_filters.search_vector(vector, scope, limit, self.dim)
        if query is None:
            return []
        query_filter = qdrant_filters.scope_filter(scope, models)
        response = await self._guarded(
            lambda client: client.query_points(
                self.collection,
                query=query,
                query_filter=query_filter,
                limit=limit,
                with_payload=[qdrant_filters.MEMORY_ID_KEY],
                with_vectors=False,
            )
        )
        return [qdrant_filters.to_hit(p) for p in response.points]

    async def count(self, tenant_id: str | None = None) -> int:
        count_filter = qdrant_filters.tenant_filter(tenant_id, models)
        result = await self._guarded(
            lambda client: client.count(self.collection, count_filter=count_filter, exact=True)
        )
        return result.count

    async def scroll(
        self, offset: str | None, limit: int, with_vectors: bool = False
    ) -> tuple[list[VectorPoint], str | None]:
        """One page of stored points in point-id order (payload; the vector as stored if asked), and the
        next page's offset."""
        records, following = await self._guarded(
            lambda client: client.scroll(
                self.collection, offset=offset, limit=limit, with_payload=True, with_vectors=with_vectors
            )
        )
        return [qdrant_filters.to_stored(r) for r in records], None if following is None else str(following)

    async def ping(self) -> bool:
        """True when the server answers and the collection exists."""
        if self._client is None:
            return False
        try:
            return await self._guarded(lambda client: client.collection_exists(self.collection))
        except SinkError:
            return False

    async def _create_if_missing(self, client: AsyncQdrantClient) -> None:
        if not await client.collection_exists(self.collection):
            await client.create_collection(
                self.collection,
                vectors_config=models.VectorParams(size=self.dim, distance=models.Distance.COSINE),
                hnsw_config=models.HnswConfigDiff(m=16, ef_construct=100),
            )
        if self.location is not None:
            return  # local mode ignores payload indexes (and warns if asked)
        info = await client.get_collection(self.collection)
        present = set(info.payload_schema or {})
        for field in qdrant_filters.INDEXED_FIELDS:
            if field in present:
                continue
            schema = models.KeywordIndexParams(
                type=models.KeywordIndexType.KEYWORD, is_tenant=field == qdrant_filters.TENANT_FIELD
            )
            await client.create_payload_index(self.collection, field, field_schema=schema, wait=True)

    async def _guarded(self, action: Callable[[AsyncQdrantClient], Awaitable[T]]) -> T:
        """Run one client call, turning transport and throttling failures into sink errors."""
        client = self._client
        if client is None:
            raise SinkUnavailableError(f"the vector index {self.where} is not open: call setup() first")
        try:
            return await action(client)
        except Exception as exc:
            translated = translate_error(exc, self.where)
            if translated is None:
                raise
            raise translated from exc


def translate_error(exc: BaseException, where: str) -> SinkError | None:
    """The sink error a qdrant-client failure stands for, or None if it should propagate as is."""
    if isinstance(exc, ResourceExhaustedResponse):
        return BackpressureError(f"Qdrant {where} is throttling: {exc}", retry_after=float(exc.retry_after_s))
    if isinstance(exc, UnexpectedResponse):
        if exc.status_code in _THROTTLED:
            return BackpressureError(
                f"Qdrant {where} answered {exc.status_code}", retry_after=_retry_after(exc.headers)
            )
        if exc.status_code in _UNREACHABLE:
            return SinkUnavailableError(f"Qdrant {where} is unreachable (HTTP {exc.status_code})")
        return None
    if isinstance(exc, ResponseHandlingException):
        source = getattr(exc, "source", None)
        if isinstance(source, httpx.TransportError | OSError):
            return SinkUnavailableError(f"Qdrant {where} cannot be reached: {source!r}")
        return None
    if isinstance(exc, httpx.TransportError | ConnectionError):
        return SinkUnavailableError(f"Qdrant {where} cannot be reached: {exc!r}")
    return None


def _retry_after(headers: Any) -> float:
    """Seconds from a `Retry-After` header (seconds form); a default when absent or a date."""
    try:
        value = float(headers.get("Retry-After"))
    except (AttributeError, TypeError, ValueError):
        return DEFAULT_RETRY_AFTER_S
    return value if value >= 0 else DEFAULT_RETRY_AFTER_S
