"""The vector index rebuilt from, or checked against, the SQL authority (`beliefstream reindex`).

SQL decides which points must exist: one per memory and per episode that has an embedding, with the
payload `vector_payload` / `episode_payload` make of the row. `rebuild` writes every such point
and deletes every other; `verify` compares point by point and reports what is *missing* (a row
without its point), *extra* (a point no row owns), *stale* (a payload that differs from what SQL
says: state, type, scope, scores) and *stale_vector* (a vector that points elsewhere than the
embedding SQL holds: re-embedded text, a zeroed vector), and heals them unless asked only to report.
The index keeps vectors normalised, and a new Edge shard in float16, so vectors are compared by
cosine within `VECTOR_TOLERANCE`, far above what that rounding moves and far below what another
text moves. `verify` holds the ids SQL expects; vectors and payloads are compared a page of stored
points at a time, against SQL read for that page. Before an extra point is deleted SQL is asked
again, so a point the projector wrote meanwhile survives.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar, runtime_checkable

import numpy as np

from sinks.base import EPISODE_KIND, MEMORY_KIND, VectorIndex, VectorPoint

T = TypeVar("T")

#: Rows or points per page.
PAGE = 1000
#: Largest cosine distance between a stored vector and SQL's embedding that is the same vector.
VECTOR_TOLERANCE = 1e-4


@runtime_checkable
class PointSource(Protocol):
    """What SQL says the index must hold (`SqlMemoryStore` is one)."""

    async def vector_points(self, kind: str, after: str | None, limit: int) -> list[VectorPoint]: ...

    async def point_ids(self, kind: str, after: str | None, limit: int) -> list[str]:
        """The ids `vector_points` pages through, the same pages, without their vectors or payloads."""

    async def vector_points_of(self, ids: Sequence[str]) -> list[VectorPoint]: ...


@runtime_checkable
class ScrollableIndex(VectorIndex, Protocol):
    """A vector index whose stored points can be listed (both implementations in `sinks.vectors`)."""

    async def scroll(
        self, offset: str | None, limit: int, with_vectors: bool = False
    ) -> tuple[list[VectorPoint], str | None]:
        """One page of stored points in point-id order (their vectors too if asked), and the next offset."""


@dataclass
class IndexReport:
    """What a rebuild or a verification found and did; ids are memory or episode ids."""

    expected: int = 0  # points SQL says must exist
    stored: int = 0  # points the index held when scanned
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)  # the payload differs
    stale_vector: list[str] = field(default_factory=list)  # the vector differs
    written: int = 0
    deleted: int = 0
    healed: bool = False

    @property
    def problems(self) -> int:
        return len(self.missing) + len(self.extra) + len(self.stale) + len(self.stale_vector)


def sql_points(source: PointSource, page: int = PAGE) -> AsyncIterator[list[VectorPoint]]:
    """Every point SQL says must exist, a page at a time: memories, then episodes, each by id."""
    return _by_kind(source.vector_points, lambda point: point.id, page)


def sql_point_ids(source: PointSource, page: int = PAGE) -> AsyncIterator[list[str]]:
    """The ids of every point SQL says must exist, a page at a time (as `sql_points`)."""
    return _by_kind(source.point_ids, lambda point_id: point_id, page)


async def _by_kind(
    fetch: Callable[[str, str | None, int], Awaitable[list[T]]], id_of: Callable[[T], str], page: int
) -> AsyncIterator[list[T]]:
    for kind in (MEMORY_KIND, EPISODE_KIND):
        after: str | None = None
        while True:
            found = await fetch(kind, after, page)
            if found:
                yield found
            if len(found) < page:
                break
            after = id_of(found[-1])


async def stored_points(
    index: ScrollableIndex, page: int = PAGE, with_vectors: bool = False
) -> AsyncIterator[list[VectorPoint]]:
    offset: str | None = None
    while True:
        points, offset = await index.scroll(offset, page, with_vectors)
        if points:
            yield points
        if offset is None:
            return


async def rebuild(source: PointSource, index: ScrollableIndex, page: int = PAGE) -> IndexReport:
    """Write every point SQL says must exist (vector and payload), then delete every other point."""
    report = IndexReport(healed=True)
    wanted: set[str] = set()
    async for points in sql_points(source, page):
        await index.write(points)
        wanted.update(p.id for p in points)
        report.written += len(points)
    report.expected = len(wanted)
    async for points in stored_points(index, page):
        report.stored += len(points)
        report.extra += [p.id for p in points if p.id not in wanted]
    report.deleted = await _delete_extra(source, index, report.extra)
    return report


async def verify(source: PointSource, index: ScrollableIndex, heal: bool = True, page: int = PAGE) -> IndexReport:
    """Compare the index with SQL (payloads and vectors); with `heal`, rewrite missing and stale points
    and delete extra ones."""
    report = IndexReport()
    unseen: set[str] = set()  # ids SQL says must have a point, until the index shows one
    async for ids in sql_point_ids(source, page):
        unseen.update(ids)
    report.expected = len(unseen)
    async for stored in stored_points(index, page, with_vectors=True):
        report.stored += len(stored)
        said = {p.id: p for p in await source.vector_points_of([p.id for p in stored])}  # as SQL says now
        for point in stored:
            unseen.discard(point.id)
            expected = said.get(point.id)
            if expected is None:
                report.extra.append(point.id)
                continue
            if _canonical(expected.payload) != _canonical(point.payload):
                report.stale.append(point.id)
            if not same_vector(expected.vector, point.vector):
                report.stale_vector.append(point.id)
    report.missing = sorted(unseen)
    if heal and report.problems:
        stale = list(dict.fromkeys([*report.stale, *report.stale_vector]))
        report.written = await _rewrite(source, index, [*report.missing, *stale], page)
        report.deleted = await _delete_extra(source, index, report.extra)
        report.healed = True
    return report


def same_vector(said: Sequence[float], stored: Sequence[float], tolerance: float = VECTOR_TOLERANCE) -> bool:
    """Whether the stored vector is SQL's embedding as the index keeps it (normalised, maybe rounded):
    the same direction within `tolerance` of cosine distance; two zero vectors are the same."""
    a, b = np.asarray(said, dtype=np.float64), np.asarray(stored, dtype=np.float64)
    if a.shape != b.shape:
        return False
    norms = float(np.sqrt(a @ a) * np.sqrt(b @ b))
    if norms == 0.0:
        return not a.any() and not b.any()
    return 1.0 - float(a @ b) / norms <= tolerance


async def _rewrite(source: PointSource, index: ScrollableIndex, ids: list[str], page: int) -> int:
    written = 0
    for start in range(0, len(ids), page):
        points = await source.vector_points_of(ids[start : start + page])  # as SQL says now
        await index.write(points)
        written += len(points)
    return written


async def _delete_extra(source: PointSource, index: ScrollableIndex, ids: list[str]) -> int:
    """Delete the points of `ids` that SQL still does not own (asked again: the projector may have
    written a new row's point since the scan)."""
    owned = {p.id for p in await source.vector_points_of(ids)} if ids else set()
    doomed = [i for i in ids if i not in owned]
    await index.delete(doomed)
    return len(doomed)


def _canonical(payload: dict) -> str:
    return json.dumps(payload, sort_keys=True, default=str)
