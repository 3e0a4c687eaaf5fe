"""`pinned_and_linked` gives what `pinned_memories` and `linked_candidates` give apart, in their orders,
on both backends (on a SQLite file one statement): agent-private rows, topics, entity and time links,
limits, ties broken as each statement breaks them."""

from __future__ import annotations

from datetime import timedelta

import pytest

from beliefs.records import MemoryState, RecallSemantics, Visibility
from sinks.recall import Currency, QueryLinks, RecallScope
from sinks.sql.store import SqlMemoryStore
from tests.sidecar.recall.seeding import NOW, mem, outcome

CURRENT = Currency(now=NOW, confidence_floor=0.4)


async def _seed(store: SqlMemoryStore, tenant: str) -> None:
    rows = [
        mem(tenant, "u1", "The user's name is Ada", profile=True, attribute="name", value="Ada", entity="user"),
        mem(tenant, "u1", "Never book red-eye flights", recall_semantics=RecallSemantics.CONSTRAINT,
            trigger={"action": "book", "domain": "travel"}, importance=0.9),
        mem(tenant, "u1", "The user's sister lives in Porto", entity="user's sister", importance=0.7),
        mem(tenant, "u1", "Marta teaches chemistry", entity="Marta", importance=0.7, days_ago=3),
        mem(tenant, "u1", "Marta runs on Sundays", entity="marta", importance=0.7, days_ago=3, topic="health"),
        mem(tenant, "u1", "Started pottery classes", days_ago=40, importance=0.6),
        mem(tenant, "u1", "Private note for the bot: Marta's birthday", entity="Marta", visibility=Visibility.AGENT,
            agent_id="bot", importance=0.8),
        mem(tenant, "u1", "Marta was a nurse", entity="Marta", state=MemoryState.SUPERSEDED, valid_until=NOW),
        mem(tenant, "u1", "Low-confidence: Marta likes tea", entity="Marta", confidence=0.2),
        mem(tenant, "u2", "Another user's Marta", entity="Marta"),
        mem(tenant, "u1", "Pinned tie A", profile=True, attribute="home_city", value="Lyon", importance=0.5),
        mem(tenant, "u1", "Pinned tie B", profile=True, attribute="timezone", value="CET", importance=0.5),
    ]
    await store.write([outcome(m, []) for m in rows])


LINKS = [
    QueryLinks(("marta",), None),
    QueryLinks(("sister", "user's sister", "marta"), None),
    QueryLinks((), (NOW - timedelta(days=45), NOW - timedelta(days=30))),
    QueryLinks(("marta",), (NOW - timedelta(days=45), NOW - timedelta(days=30))),
    QueryLinks(("nobody",), None),
]
SCOPES = [
    RecallScope("T", "u1"),
    RecallScope("T", "u1", agent_id="bot"),
    RecallScope("T", "u1", topics=("personal",)),
]


@pytest.mark.parametrize("limits", [(10, 50), (1, 2)])
async def test_one_call_gives_what_the_two_reads_give(store: SqlMemoryStore, tenant: str, limits) -> None:
    await _seed(store, tenant)
    pinned_limit, linked_limit = limits
    for template in SCOPES:
        scope = RecallScope(tenant, template.user_id, agent_id=template.agent_id, topics=template.topics)
        pinned = await store.pinned_memories(scope, CURRENT, pinned_limit)
        assert pinned, "the seed pins rows"
        for links in LINKS:
            linked = await store.linked_candidates(scope, CURRENT, links, linked_limit)
            both = await store.pinned_and_linked(scope, CURRENT, pinned_limit, links, linked_limit)
            assert both == (pinned, linked), (scope, links)
        assert await store.pinned_and_linked(scope, CURRENT, pinned_limit, QueryLinks((), None), 5) == (pinned, [])


async def test_on_a_sqlite_file_it_is_one_statement(tmp_path, tenant) -> None:
    store = SqlMemoryStore(f"sqlite+aiosqlite:///{(tmp_path / 'one.db').as_posix()}")
    await store.setup()
    heard: list[str] = []
    try:
        await _seed(store, tenant)
        store._reader.on_statement(lambda sql, _args: heard.append(sql))
        pinned, linked = await store.pinned_and_linked(RecallScope(tenant, "u1"), CURRENT, 10, LINKS[0], 50)
    finally:
        await store.close()
    assert len(heard) == 1 and "UNION ALL" in heard[0]
    assert len(pinned) == 4 and len(linked) == 2
