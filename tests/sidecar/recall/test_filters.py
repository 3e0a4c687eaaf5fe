"""Recall filters (`since`/`until` on valid_from, `types`, `topics`, `agent`): pure, then through the service."""

from __future__ import annotations

from datetime import timedelta

import pytest
from pydantic import ValidationError

from beliefs.records import MemoryType
from sidecar.auth import Principal
from sidecar.recall import filters
from sidecar.recall.models import RecallRequest
from sidecar.recall.service import RecallService
from tests.sidecar.recall.seeding import NOW, mem, seed

OLD = mem("acme", "u1", "The user drinks green tea every morning.", days_ago=300, type=MemoryType.FACT,
          topic="health")
NEW = mem("acme", "u1", "The user prefers oolong tea with lunch.", days_ago=3, topic="personal")
BOTS = mem("acme", "u1", "The user likes jasmine tea in the evening.", days_ago=10, agent_id="tea-bot",
           topic="personal")


def request(**fields) -> RecallRequest:
    return RecallRequest(user_id="u1", query="tea", **fields)


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({}, {OLD.id, NEW.id, BOTS.id}),
        ({"since": NOW - timedelta(days=30)}, {NEW.id, BOTS.id}),
        ({"until": NOW - timedelta(days=30)}, {OLD.id}),
        ({"since": NOW - timedelta(days=11), "until": NOW - timedelta(days=5)}, {BOTS.id}),
        ({"types": ["fact"]}, {OLD.id}),
        ({"topics": ["personal", "work"]}, {NEW.id, BOTS.id}),
        ({"agent": "tea-bot"}, {BOTS.id}),
        ({"types": ["preference"], "agent": "tea-bot"}, {BOTS.id}),
        ({"types": ["decision"]}, set()),
    ],
)
def test_each_filter_keeps_exactly_the_memories_it_names(fields, expected):
    hydrated, pinned = filters.narrowed(request(**fields), [OLD, NEW], [BOTS])
    assert {m.id for m in hydrated + pinned} == expected


def test_no_filter_changes_nothing_and_fetches_as_before():
    assert not filters.narrows(request())
    assert filters.narrows(request(types=["fact"]))


@pytest.mark.parametrize(
    "fields",
    [{"since": NOW, "until": NOW - timedelta(days=1)}, {"types": []}, {"types": ["mood"]}, {"topics": [""]}],
)
def test_impossible_filters_are_refused(fields):
    with pytest.raises(ValidationError):
        request(**fields)


async def test_the_service_recalls_only_what_the_filters_allow(store, edge_vectors, minilm):
    await seed(store, edge_vectors, minilm, [OLD, NEW, BOTS])
    service = RecallService(store, edge_vectors, minilm, clock=lambda: NOW)
    principal = Principal("acme")
    unfiltered = await service.recall(principal, request())
    assert {m.id for m in unfiltered.memories} == {OLD.id, NEW.id, BOTS.id}
    recent = await service.recall(principal, request(since=NOW - timedelta(days=30), types=["preference"]))
    assert {m.id for m in recent.memories} == {NEW.id, BOTS.id}
    by_bot = await service.recall(principal, request(agent="tea-bot"))
    assert [m.id for m in by_bot.memories] == [BOTS.id]
