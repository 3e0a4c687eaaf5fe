"""The store's recall queries on both backends: scope and currency inside every query, full text, audit."""

from __future__ import annotations

import asyncio
import re
import sqlite3
import threading
from datetime import timedelta

import pytest
import sqlalchemy as sa

from beliefs.records import MemoryState, RecallAudit, RecallSemantics, Trust, Visibility
from sinks.recall import Currency, RecallScope, RecallStore
from sinks.sql.recall_queries import search_terms
from sinks.sql.store import SqlMemoryStore
from sinks.sql.tables import memories, recall_audit
from tests.conftest import unique_tenant
from tests.sidecar.recall.seeding import NOW, mem, outcome

CURRENT = Currency(now=NOW, confidence_floor=0.4)


async def write(store: SqlMemoryStore, *items) -> None:
    await store.write([outcome(m, []) for m in items])


async def keyword_ids(store, scope: RecallScope, *terms: str) -> list[str]:
    return [hit.id for hit in await store.keyword_candidates(scope, CURRENT, list(terms), 50)]


def test_the_store_is_a_recall_store(store) -> None:
    assert isinstance(store, RecallStore)


async def test_keyword_search_stems_and_ranks_within_the_user(store, tenant) -> None:
    editor = mem(tenant, "u1", "The user prefers the Helix editor for Rust work.")
    other = mem(tenant, "u1", "The user walks the dog every morning.")
    neighbour = mem(tenant, "u2", "The user prefers the Helix editor.")
    elsewhere = mem(unique_tenant(), "u1", "The user prefers the Helix editor.")
    await write(store, editor, other, neighbour)
    await write(store, elsewhere)

    assert await keyword_ids(store, RecallScope(tenant, "u1"), "which editors", "helix") == [editor.id]
    assert await keyword_ids(store, RecallScope(tenant, "u1"), "preferring") == [editor.id]
    assert await keyword_ids(store, RecallScope(tenant, "u1"), "nothing-matches-this") == []


async def test_keyword_ranking_weighs_words_by_how_rare_they_are_for_this_user(store, tenant) -> None:
    coffee = [mem(tenant, "u1", f"The user drinks coffee at the {place}.") for place in ("office", "cafe", "gym")]
    trip = mem(tenant, "u1", "The user plans a trip to Lisbon.")
    both = mem(tenant, "u1", "The user wants coffee in Lisbon.")
    await write(store, *coffee, trip, both)
    query = ("coffee", "lisbon")

    ranked = await keyword_ids(store, RecallScope(tenant, "u1"), *query)
    assert ranked[:2] == [both.id, trip.id]  # both words, then the word rare in this user's memories
    assert set(ranked[2:]) == {m.id for m in coffee}

    # other users' memories do not move this user's ranking: the statistics are the user's own
    await write(store, *(mem(tenant, f"other-{i}", "Lisbon trip again.") for i in range(8)))
    await write(store, *(mem(unique_tenant(), "u1", "Lisbon, Lisbon.") for _ in range(3)))
    assert await keyword_ids(store, RecallScope(tenant, "u1"), *query) == ranked


async def test_keyword_ranking_prefers_the_shorter_memory_for_the_same_words(store, tenant) -> None:
    short = mem(tenant, "u1", "Allergic to peanuts.")
    long = mem(tenant, "u1", "Mentioned at a long dinner with friends last spring that peanuts are a problem.")
    await write(store, long, short)
    assert await keyword_ids(store, RecallScope(tenant, "u1"), "peanuts") == [short.id, long.id]


async def test_keyword_search_applies_currency_visibility_and_topic(store, tenant) -> None:
    scope = RecallScope(tenant, "u1", agent_id="bot")
    live = mem(tenant, "u1", "Gardening tomatoes live", topic="hobby")
    own = mem(tenant, "u1", "Gardening tomatoes own", visibility=Visibility.AGENT, agent_id="bot")
    theirs = mem(tenant, "u1", "Gardening tomatoes theirs", visibility=Visibility.AGENT, agent_id="spy")
    dead = [
        mem(tenant, "u1", "Gardening tomatoes revoked", state=MemoryState.REVOKED, revoked_at=NOW),
        mem(tenant, "u1", "Gardening tomatoes expired", expires_at=NOW - timedelta(seconds=1)),
        mem(tenant, "u1", "Gardening tomatoes weak", confidence=0.39),
        mem(tenant, "u1", "Gardening tomatoes untrusted", trust=Trust.UNTRUSTED),
        mem(tenant, "u1", "Gardening tomatoes old", state=MemoryState.SUPERSEDED, valid_until=NOW),
        mem(tenant, "u1", "Gardening tomatoes contested", state=MemoryState.CONTESTED),
    ]
    await write(store, live, own, theirs, *dead)

    assert set(await keyword_ids(store, scope, "tomatoes")) == {live.id, own.id}
    assert await keyword_ids(store, RecallScope(tenant, "u1"), "tomatoes") == [live.id]
    assert await keyword_ids(store, RecallScope(tenant, "u1", topics=("hobby",)), "tomatoes") == [live.id]
    assert await keyword_ids(store, RecallScope(tenant, "u1", topics=("work",)), "tomatoes") == []


@pytest.mark.parametrize(
    "terms", [['"', "OR", "*"], ["NEAR(a b)", "scope:x"], ["'; DROP TABLE memories; --"], ["a|b", "!", "&", ":*"]]
)
async def test_query_syntax_in_terms_is_only_words(store, tenant, terms) -> None:
    await write(store, mem(tenant, "u1", "Drop the table near the window"))
    await keyword_ids(store, RecallScope(tenant, "u1"), *terms)  # never a syntax error
    assert search_terms(['a "b" c*']) == ["a", "b", "c"]


async def test_keyword_index_follows_deletes(store, tenant) -> None:
    gone = mem(tenant, "u1", "Kayaking on weekends")
    await write(store, gone)
    async with store._engine.begin() as conn:
        await conn.execute(sa.delete(memories).where(memories.c.id == gone.id))
    assert await keyword_ids(store, RecallScope(tenant, "u1"), "kayaking") == []


async def test_hydrate_applies_every_hard_filter_to_given_ids(store, tenant) -> None:
    live = mem(tenant, "u1", "live")
    revoked = mem(tenant, "u1", "revoked", state=MemoryState.REVOKED, revoked_at=NOW)
    neighbour = mem(tenant, "u2", "neighbour")
    private = mem(tenant, "u1", "private", visibility=Visibility.AGENT, agent_id="spy")
    foreign = mem(unique_tenant(), "u1", "foreign")
    await write(store, live, revoked, neighbour, private)
    await write(store, foreign)
    ids = [m.id for m in (live, revoked, neighbour, private, foreign)]

    found = await store.hydrate(RecallScope(tenant, "u1", agent_id="bot"), CURRENT, ids)
    assert [m.id for m in found] == [live.id]


async def test_hydrate_brings_the_current_slot_mates_of_single_valued_attributes(store, tenant) -> None:
    slot = {"entity": "user", "attribute": "preferred_meeting_time"}
    morning = mem(tenant, "u1", "Prefers morning meetings", value="morning", **slot)
    afternoon = mem(tenant, "u1", "Prefers afternoons", value="afternoon", trust=Trust.CAUTION, **slot)
    hobby = mem(tenant, "u1", "Likes chess", entity="user", attribute="likes", value="chess")
    await write(store, morning, afternoon, hobby)

    scope = RecallScope(tenant, "u1")
    with_mates = await store.hydrate(scope, CURRENT, [morning.id, hobby.id], ["preferred_meeting_time"])
    assert {m.id for m in with_mates} == {morning.id, afternoon.id, hobby.id}
    assert {m.id for m in await store.hydrate(scope, CURRENT, [morning.id])} == {morning.id}


async def test_hydrate_gives_each_memory_once_the_ids_first(store, tenant) -> None:
    """Two ids of one slot are each other's mates, and a third memory of the slot is the mate of both."""
    slot = {"entity": "user", "attribute": "timezone"}
    places = {"UTC": "home", "CET": "work", "EST": "travel"}
    zones = [mem(tenant, "u1", f"In zone {z} at {c}", value=z, context=c, **slot) for z, c in places.items()]
    hobby = mem(tenant, "u1", "Likes chess", entity="user", attribute="likes", value="chess")
    await write(store, *zones, hobby)
    scope = RecallScope(tenant, "u1")
    ids = [zones[0].id, hobby.id, zones[1].id]

    found = [m.id for m in await store.hydrate(scope, CURRENT, ids, ["timezone"])]
    by_id = [m.id for m in await store.hydrate(scope, CURRENT, ids)]
    assert sorted(by_id) == sorted(ids)
    assert found == [*by_id, zones[2].id]


async def test_pinned_memories_are_profile_facts_and_constraints(store, tenant) -> None:
    name = mem(tenant, "u1", "The user's name is Ada", profile=True, attribute="name", value="Ada")
    avoid = mem(
        tenant,
        "u1",
        "Never recommend Alto",
        recall_semantics=RecallSemantics.CONSTRAINT,
        trigger={"action": "recommend", "domain": "restaurant"},
    )
    plain = mem(tenant, "u1", "Likes jazz")
    stale = mem(tenant, "u1", "Name was Bob", profile=True, state=MemoryState.SUPERSEDED, valid_until=NOW)
    await write(store, name, avoid, plain, stale)

    pinned = await store.pinned_memories(RecallScope(tenant, "u1"), CURRENT, 10)
    assert {m.id for m in pinned} == {name.id, avoid.id}


async def test_record_access_and_audit(store, tenant) -> None:
    a, b = mem(tenant, "u1", "a"), mem(tenant, "u1", "b")
    await write(store, a, b)
    await store.record_access({a.id: 2, b.id: 1}, NOW)
    await store.record_access({a.id: 1}, NOW)
    record = RecallAudit(
        id=f"audit-{tenant}", tenant_id=tenant, user_id="u1", key_id="k", at=NOW, query_digest="0" * 64,
        memory_ids=[a.id],
    )
    await store.write_audit([record])
    await store.write_audit([record])  # idempotent by id

    got = {m.id: m for m in await store.hydrate(RecallScope(tenant, "u1"), CURRENT, [a.id, b.id])}
    assert (got[a.id].access_count, got[b.id].access_count) == (3, 1)
    assert got[a.id].last_accessed == NOW
    async with store._engine.connect() as conn:
        rows = (await conn.execute(sa.select(recall_audit).where(recall_audit.c.tenant_id == tenant))).all()
    assert len(rows) == 1 and rows[0].memory_ids == [a.id]


@pytest.mark.parametrize("threads", [0, 2])
async def test_sqlite_recall_reads_run_where_configured_with_the_same_answers(tmp_path, threads) -> None:
    """0 reader threads: on the event loop's thread; n: on the reader pool. Same rows either way."""
    store = SqlMemoryStore(f"sqlite+aiosqlite:///{(tmp_path / 'r.db').as_posix()}", sqlite_read_threads=threads)
    await store.setup()
    ran_on: set[str] = set()
    store._reader.on_statement(lambda *_: ran_on.add(threading.current_thread().name))
    try:
        name = mem("t", "u1", "The user's name is Ada", profile=True, attribute="name", value="Ada")
        kayak = mem("t", "u1", "Kayaking on weekends")
        await write(store, name, kayak, mem("t", "u2", "Kayaking daily"))
        scope = RecallScope("t", "u1")
        found = await asyncio.gather(
            keyword_ids(store, scope, "kayaking"),
            store.hydrate(scope, CURRENT, [name.id, kayak.id]),
            store.pinned_memories(scope, CURRENT, 10),
        )
        assert [found[0], {m.id for m in found[1]}, [m.id for m in found[2]]] == [
            [kayak.id], {name.id, kayak.id}, [name.id]
        ]
        if threads == 0:
            assert ran_on == {threading.current_thread().name}
        else:
            assert ran_on and all(thread.startswith("beliefstream-sql-read") for thread in ran_on)
    finally:
        await store.close()
    with pytest.raises(RuntimeError, match="closed"):
        await store.hydrate(scope, CURRENT, [name.id])


async def test_sqlite_plans_use_indexes(tmp_path) -> None:
    """No recall query scans the memories table (EXPLAIN QUERY PLAN on SQLite); keyword search reads
    the rows the full-text index matched; each statement finds its ids (or seeds) once."""
    store = SqlMemoryStore(f"sqlite+aiosqlite:///{(tmp_path / 'plan.db').as_posix()}")
    await store.setup()
    plans: list[str] = []
    explain = sqlite3.connect(tmp_path / "plan.db")

    def capture(statement: str, parameters) -> None:
        if statement.lstrip().upper().startswith(("SELECT", "WITH")):
            rows = explain.execute(f"EXPLAIN QUERY PLAN {statement}", parameters).fetchall()
            plans.append(" | ".join(row[-1] for row in rows))

    try:
        await write(store, mem("t", "u1", "hello world", attribute="timezone", value="UTC", entity="user"))
        store._reader.on_statement(capture)
        scope = RecallScope("t", "u1", agent_id="a")
        await store.keyword_candidates(scope, CURRENT, ["hello"], 10)
        await store.pinned_memories(scope, CURRENT, 10)
        await store.hydrate(scope, CURRENT, ["x", "y"], ["timezone"])
        await store.open_contests(scope, CURRENT, 20)
        await store.episode_keyword_candidates(scope, CURRENT, ["hello"], 10)
        await store.episode_neighbours(scope, CURRENT, ["x", "y"], 2)
    finally:
        await store.close()
        explain.close()
    assert len(plans) == 6
    for plan in plans:
        assert not re.search(r"\bSCAN (memories|m|s|c)\b(?!_fts)", plan), plan
    assert "ix_memories_recall_pinned" in plans[1]
    assert "VIRTUAL TABLE INDEX" in plans[0]
    assert "SEARCH memories USING INTEGER PRIMARY KEY (rowid=?)" in plans[0]  # the matched rows only
    assert "SEARCH episodes USING INTEGER PRIMARY KEY (rowid=?)" in plans[4]
    assert plans[4].count("SEARCH n USING INTEGER PRIMARY KEY (rowid=?)") == 2  # the turns around, by rowid
    assert plans[5].count("SEARCH n USING INTEGER PRIMARY KEY (rowid=?)") == 2
    # hydrate finds its ids once, reads them by rowid and joins their slot-mates to them
    assert "MATERIALIZE hit" in plans[2] and len(re.findall(r"SEARCH c USING", plans[2])) == 1
    assert "SEARCH m USING INTEGER PRIMARY KEY (rowid=?)" in plans[2]
    # the turns around keyword hits: their seeds found once, by the rowids of the hits
    assert "MATERIALIZE seed" in plans[4] and plans[4].count("SEARCH s USING INTEGER PRIMARY KEY (rowid=?)") == 1
    # the neighbours' seeds found once, not once per part
    assert "MATERIALIZE seed" in plans[5] and len(re.findall(r"SEARCH s USING", plans[5])) == 1


async def flip(store: SqlMemoryStore, tenant: str, user: str, attribute: str, **fields) -> list[str]:
    """`user` flips `attribute` a → b → a → b within days: the fourth write opens a contested slot."""
    for i, value in enumerate("abab"):
        text = f"The user's {attribute} is {value}."
        slot = {"entity": "user", "attribute": attribute}
        claim = mem(tenant, user, text, value=value, days_ago=8 - i, **slot, **fields)
        await write(store, claim)
    contested, _ = await store.list_memories(tenant, user, state=MemoryState.CONTESTED)
    return sorted(m.id for m in contested if m.attribute == attribute)


async def test_open_contests_are_the_users_open_slots_with_their_contested_memories_in_scope(
    store, tenant
) -> None:
    editor = await flip(store, tenant, "u1", "preferred_editor")
    theme = await flip(store, tenant, "u1", "preferred_theme", visibility=Visibility.AGENT, agent_id="bot")
    await flip(store, tenant, "u2", "preferred_editor")

    async def seen(scope: RecallScope) -> list[tuple[str, list[str]]]:
        contests = await store.open_contests(scope, CURRENT, 20)
        return sorted((c.attribute, sorted(m.id for m in c.memories)) for c in contests)

    both = [("preferred_editor", editor), ("preferred_theme", theme)]
    assert await seen(RecallScope(tenant, "u1")) == [("preferred_editor", editor)]  # theme: bot's only
    assert await seen(RecallScope(tenant, "u1", agent_id="bot")) == both
    assert await seen(RecallScope(tenant, "u1", agent_id="bot", topics=("health",))) == both
    assert await seen(RecallScope(unique_tenant(), "u1")) == []
    (slot,) = [s for s in await store.list_contested(tenant, "u1") if s.attribute == "preferred_editor"]
    await store.resolve_contested(tenant, slot.id, value="a", at=NOW)
    assert await seen(RecallScope(tenant, "u1")) == []
