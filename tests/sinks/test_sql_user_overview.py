"""`AdminStore` on SQLite and PostgreSQL: user search, one user's overview within a reach, the audit
of reads newest first, and the narrowed, newest-first listings the console pages through."""

from __future__ import annotations

import uuid
from datetime import timedelta

from beliefs.records import MemoryState, MemoryType, RecallAudit, Visibility
from sinks.contracts import MemoryListing
from sinks.reach import EVERY_AGENT, SHARED_ONLY, Reach
from sinks.sql.admin import AdminStore
from tests.sinks.episode_builders import kept, said
from tests.sinks.store_builders import T0, mem, turn


async def test_users_are_searched_by_id_in_any_case_with_like_characters_taken_literally(store, tenant):
    for user in ("Ada-1", "bob", "u_ada", "u%x"):
        await store.insert_memory(mem(turn(tenant, user)), None)
    admin = AdminStore.of(store)
    found, _ = await admin.list_users(tenant, search="ADA")
    assert [u.user_id for u in found] == ["Ada-1", "u_ada"]
    assert [u.user_id for u in (await admin.list_users(tenant, search="_"))[0]] == ["u_ada"]
    assert [u.user_id for u in (await admin.list_users(tenant, search="%"))[0]] == ["u%x"]
    assert (await admin.list_users("someone-else", search="ada"))[0] == []


async def test_the_overview_counts_what_the_reach_sees(store, tenant):
    shared = turn(tenant)
    await store.insert_memory(mem(shared, type=MemoryType.FACT, topic="home"), None)
    await store.insert_memory(mem(turn(tenant), key="p", topic="work"), None)
    old = turn(tenant)
    await store.insert_memory(mem(old, key="o", entity="user", attribute="lives_in", value="Porto"), None)
    newer = turn(tenant)
    await store.insert_memory(mem(newer, key="n", entity="user", attribute="lives_in", value="Lisbon"), None)
    private = turn(tenant)
    await store.insert_memory(
        mem(private, key="s", agent_id="bot", visibility=Visibility.AGENT, topic="secret"), None
    )
    await store.write([kept(said(tenant, "I moved to Lisbon.", minute=90))])

    admin = AdminStore.of(store)
    seen = await admin.user_overview(tenant, "u1", SHARED_ONLY)
    assert seen.memories == {"active": 3, "superseded": 1}
    assert seen.current_by_type == {"fact": 1, "preference": 2}
    assert seen.current_by_topic == {"home": 1, "work": 2}
    assert seen.episodes == {"active": 1} and seen.open_contested == 0
    assert seen.last_said_at == T0 + timedelta(minutes=90)
    everything = await admin.user_overview(tenant, "u1", EVERY_AGENT)
    assert everything.memories == {"active": 4, "superseded": 1} and everything.current_by_topic["secret"] == 1
    assert (await admin.user_overview(tenant, "u1", Reach(agent_id="bot"))).memories["active"] == 4
    nobody = await admin.user_overview("someone-else", "u1", EVERY_AGENT)
    assert (nobody.memories, nobody.episodes, nobody.last_memory_at) == ({}, {}, None)


def _read(tenant: str, minute: int, agent: str | None = None) -> RecallAudit:
    return RecallAudit(
        id=str(uuid.uuid4()), tenant_id=tenant, user_id="u1", agent_id=agent, key_id="f1ngerprint",
        at=T0 + timedelta(minutes=minute), query_digest="0" * 64, memory_ids=[f"m{minute}"],
    )  # fmt: skip


async def test_reads_are_listed_newest_first_a_page_at_a_time_within_the_reach(store, tenant):
    await store.write_audit([_read(tenant, m) for m in (1, 3, 2)] + [_read(tenant, 4, agent="bot")])
    admin = AdminStore.of(store)
    page, cursor = await admin.list_reads(tenant, "u1", SHARED_ONLY, limit=2)
    assert [r.memory_ids for r in page] == [["m3"], ["m2"]]
    rest, end = await admin.list_reads(tenant, "u1", SHARED_ONLY, limit=2, cursor=cursor)
    assert [r.memory_ids for r in rest] == [["m1"]] and end is None
    bots, _ = await admin.list_reads(tenant, "u1", Reach(agent_id="bot"))
    assert [r.memory_ids for r in bots] == [["m4"], ["m3"], ["m2"], ["m1"]]
    assert (await admin.list_reads("someone-else", "u1", EVERY_AGENT))[0] == []


async def test_listings_narrow_by_type_and_topic_and_page_newest_first(store, tenant):
    ids = []
    for minute, (kind, topic) in enumerate([("fact", "home"), ("preference", "home"), ("fact", "work"),
                                            ("fact", "home"), ("fact", "home")], start=1):  # fmt: skip
        memory = mem(turn(tenant, minute=minute), type=kind, topic=topic)
        ids.append(memory.id)
        await store.insert_memory(memory, None)
    narrowing = MemoryListing(type=MemoryType.FACT, topic="home", newest_first=True)
    page, cursor = await store.list_memories(tenant, "u1", MemoryState.ACTIVE, 2, None, narrowing)
    assert [m.id for m in page] == [ids[4], ids[3]]
    rest, end = await store.list_memories(tenant, "u1", MemoryState.ACTIVE, 2, cursor, narrowing)
    assert [m.id for m in rest] == [ids[0]] and end is None

    for minute in (1, 2, 3):
        await store.write([kept(said(tenant, f"turn {minute}", minute=minute))])
    first, cursor = await store.list_episodes(tenant, "u1", None, 2, None, newest_first=True)
    last, end = await store.list_episodes(tenant, "u1", None, 2, cursor, newest_first=True)
    assert [e.text for e in first + last] == ["turn 3", "turn 2", "turn 1"] and end is None
