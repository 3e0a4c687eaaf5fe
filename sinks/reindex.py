"""The vector index rebuilt from, or checked against, the SQL authority (`beliefstream reindex`).

SQL decides which points must exist: one per memory and per episode that has an embedding, with the
payload `vector_payload` / `episode_payload` make of the row. `rebuild` writes every such point
and deletes every other; `verify` compares point by point and reports what is *missing* (a row
without its point), *extra* (a point no row owns) and *stale* (a payload that differs from what
SQL says: state, type, scope, scores), and heals them unless asked only to report. Before an
extra point is deleted SQL is asked again, so a point the projector wrote meanwhile survives.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from sinks.base import EPISODE_KIND, MEMORY_KIND, VectorIndex, VectorPoint

#: Rows or points per page.
PAGE = 1000


@runtime_checkable
class PointSource(Protocol):
    """What SQL says the index must hold (`SqlMemoryStore` is one)."""

    async def vector_points(self, kind: str, after: str | None, limit: int) -> list[VectorPoint]: ...

    async def vector_points_of(self, ids: Sequence[str]) -> list[VectorPoint]: ...


@runtime_checkable
class ScrollableIndex(VectorIndex, Protocol):
    """A vector index whose stored points can be listed (both implementations in `sinks.vectors`)."""

    async def scroll(self, offset: str | None, limit: int) -> tuple[list[VectorPoint], str | None]: ...


@dataclass
class IndexReport:
    """What a rebuild or a verification found and did; ids are memory or episode ids."""

    expected: int = 0  # points SQL says must exist
    stored: int = 0  # points the index held when scanned
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    written: int = 0
    deleted: int = 0
    healed: bool = False

    @property
    def problems(self) -> int:
        return len(self.missing) + len(self.extra) + len(self.stale)


async def sql_points(source: PointSource, page: int = PAGE) -> AsyncIterator[list[VectorPoint]]:
    """Every point SQL says must exist, a page at a time: memories, then episodes, each by id."""
    for kind in (MEMORY_KIND, EPISODE_KIND):
        after: str | None = None
        while True:
            points = await source.vector_points(kind, after, page)
            if points:
                yield points
            if len(points) < page:
                break
            after = points[-1].id


async def stored_points(index: ScrollableIndex, page: int = PAGE) -> AsyncIterator[list[VectorPoint]]:
    offset: str | None = None
    while True:
        points, offset = await index.scroll(offset, page)
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
    """Compare the index with SQL; with `heal`, rewrite missing and stale points and delete extra ones."""
    report = IndexReport()
    wanted: dict[str, bytes] = {}  # id -> digest of the payload SQL says
    async for points in sql_points(source, page):
        wanted.update((p.id, _digest(p.payload)) for p in points)
    report.expected = len(wanted)
    seen: set[str] = set()
    async for points in stored_points(index, page):
        report.stored += len(points)
        for point in points:
            seen.add(point.id)
            digest = wanted.get(point.id)
            if digest is None:
                report.extra.append(point.id)
            elif digest != _digest(point.payload):
                report.stale.append(point.id)
    report.missing = [i for i in wanted if i not in seen]
    if heal and report.problems:
        report.written = await _rewrite(source, index, [*report.missing, *report.stale], page)
        report.deleted = await _delete_extra(source, index, report.extra)
        report.healed = True
    return report


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


def _digest(payload: dict) -> bytes:
    """A short fingerprint of a payload: `verify` holds one per expected point, not the payload."""
    return hashlib.blake2b(json.dumps(payload, sort_keys=True, default=str).encode(), digest_size=16).digest()
