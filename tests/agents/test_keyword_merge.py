"""The keyword indexes' merge: SQLite's FTS5 segments merged to one, searches unchanged; nothing on PostgreSQL."""

from __future__ import annotations

import pytest

from agents.keyword_merge import merge_keyword_indexes
from beliefs.errors import ConfigurationError
from sinks.manage import KeywordIndexStore
from sinks.recall import Currency, RecallScope
from sinks.sql.errors import InvalidRequestError
from sinks.sql.manage_store import MaintenanceStore
from sinks.sql.store import SqlMemoryStore
from tests.sinks.episode_builders import T0, kept, said

WORDS = ["harbour", "violin", "marathon", "lantern", "glacier"]


async def _found(store: SqlMemoryStore, tenant: str) -> dict[str, list[str]]:
    scope, currency = RecallScope(tenant, "u1"), Currency(T0, 0.4)
    return {
        word: sorted(hit.id for hit in await store.episode_keyword_candidates(scope, currency, [word], 50))
        for word in WORDS
    }


async def test_segments_of_many_small_writes_merge_to_one_and_search_the_same(
    store: SqlMemoryStore, tenant: str, sql_url: str
) -> None:
    for n in range(24):  # one transaction each: FTS5 flushes a segment per write
        await store.write([kept(said(tenant, f"The {WORDS[n % 5]} and the {WORDS[(n + 2) % 5]}, take {n}.", minute=n))])
    maintenance = MaintenanceStore.of(store)
    before = await _found(store, tenant)

    reports = await merge_keyword_indexes(maintenance, pages=1)
    again = await merge_keyword_indexes(maintenance, pages=1)

    assert await _found(store, tenant) == before
    assert all(len(ids) >= 9 for ids in before.values())
    if sql_url.startswith("sqlite"):
        episodes = next(r for r in reports if r.index == "episodes_fts")
        assert episodes.segments_before > 1 and episodes.steps >= 1
        assert episodes.segments_after == 1 == await maintenance.keyword_segments("episodes_fts")
        assert again == []  # one segment each: nothing left to merge
    else:
        assert maintenance.keyword_indexes() == () and reports == again == []


async def test_only_the_schema_s_keyword_indexes_are_named_in_a_statement(store: SqlMemoryStore, sql_url: str) -> None:
    if not sql_url.startswith("sqlite"):
        pytest.skip("PostgreSQL has no keyword index to merge")
    maintenance = MaintenanceStore.of(store)
    with pytest.raises(InvalidRequestError, match="not a keyword index"):
        await maintenance.keyword_segments("memories; DROP TABLE memories")
    with pytest.raises(InvalidRequestError, match="pages must be at least 1"):
        await maintenance.merge_keyword_index("memories_fts", 0, first=True)


class CountingIndexes(KeywordIndexStore):
    """Indexes that merge one segment away per step; `steps` records each step's `first`."""

    def __init__(self, segments: dict[str, int]) -> None:
        self.segments = dict(segments)
        self.steps: list[tuple[str, bool]] = []

    def keyword_indexes(self) -> tuple[str, ...]:
        return tuple(self.segments)

    async def keyword_segments(self, index: str) -> int:
        return self.segments[index]

    async def merge_keyword_index(self, index: str, pages: int, *, first: bool) -> bool:
        self.steps.append((index, first))
        if self.segments[index] <= 1:
            return False
        self.segments[index] -= 1
        return True


async def test_a_pass_starts_once_per_index_and_stops_when_nothing_is_left() -> None:
    indexes = CountingIndexes({"a": 4, "b": 1, "c": 2})

    reports = await merge_keyword_indexes(indexes, pages=10)

    assert [(r.index, r.segments_before, r.segments_after, r.steps) for r in reports] == [("a", 4, 1, 3), ("c", 2, 1, 1)]
    assert indexes.steps == [("a", True), ("a", False), ("a", False), ("a", False), ("c", True), ("c", False)]


async def test_a_pass_is_bounded_and_its_parameters_checked() -> None:
    indexes = CountingIndexes({"a": 50})
    [report] = await merge_keyword_indexes(indexes, pages=10, max_steps=5)
    assert (report.steps, report.segments_after) == (5, 45)
    with pytest.raises(ConfigurationError, match="at least 1"):
        await merge_keyword_indexes(indexes, pages=0)
