"""`AdminStore` on SQLite and PostgreSQL: edits as new versions, the user list, attribute history."""

from __future__ import annotations

from datetime import timedelta

import pytest

from beliefs.records import MemoryState
from sidecar.edit import MemoryEdit, edited_version
from sinks.sql.admin import AdminStore
from sinks.sql.errors import InvalidCursorError, MemoryNotCurrentError
from tests.sinks.store_builders import T0, mem, turn


async def test_an_edit_supersedes_the_old_version_and_a_retry_writes_nothing(store, tenant):
    old = mem(turn(tenant), entity="user", attribute="preferred_editor", value="vim")
    await store.insert_memory(old, [0.1, 0.2])
    admin = AdminStore.of(store)
    edit = MemoryEdit(value="helix", text="The user prefers helix.")
    new = edited_version(old, edit, T0 + timedelta(days=1))

    closed, stored = await admin.edit_memory(tenant, old.id, new, [0.3, 0.4], T0 + timedelta(days=1))
    assert (closed.state, closed.superseded_by, closed.valid_until) == (MemoryState.SUPERSEDED, new.id, new.valid_from)
    assert stored == new and (await store.get_memory(tenant, new.id)) == new
    assert [m.id for m in await store.memory_history(tenant, new.id)] == [old.id, new.id]
    events_before = len(await store.pending_events(limit=10_000))
    assert await admin.edit_memory(tenant, old.id, new, [0.3, 0.4], T0 + timedelta(days=2)) == (closed, stored)
    assert len(await store.pending_events(limit=10_000)) == events_before

    other = edited_version(old, MemoryEdit(value="zed", text="The user prefers zed."), T0 + timedelta(days=3))
    with pytest.raises(MemoryNotCurrentError, match=new.id):
        await admin.edit_memory(tenant, old.id, other, None, T0 + timedelta(days=3))
    assert await admin.edit_memory("someone-else", old.id, new.model_copy(update={"tenant_id": "someone-else"}),
                                   None, T0) is None


async def test_users_are_counted_by_state_and_paged(store, tenant):
    for user in ("b", "a", "c"):
        await store.insert_memory(mem(turn(tenant, user)), None)
    first = turn(tenant, "a")
    await store.insert_memory(mem(first, key="x", entity="user", attribute="lives_in", value="Porto"), None)
    admin = AdminStore.of(store)
    page, cursor = await admin.list_users(tenant, limit=2)
    assert [(u.user_id, u.counts, u.total) for u in page] == [("a", {"active": 2}, 2), ("b", {"active": 1}, 1)]
    rest, end = await admin.list_users(tenant, limit=2, cursor=cursor)
    assert [u.user_id for u in rest] == ["c"] and end is None
    with pytest.raises(InvalidCursorError):
        await admin.list_users(tenant, cursor="not base64!")


async def test_attribute_history_lists_every_value_oldest_first(store, tenant):
    for minute, city in ((1, "Berlin"), (2, "Porto"), (3, "Lisbon")):
        said = turn(tenant, minute=minute)
        await store.insert_memory(mem(said, key=city, entity="user", attribute="lives_in", value=city), None)
    history = await AdminStore.of(store).attribute_history(tenant, "u1", "lives_in")
    assert [(m.value, m.state) for m in history] == [
        ("Berlin", MemoryState.SUPERSEDED), ("Porto", MemoryState.SUPERSEDED), ("Lisbon", MemoryState.ACTIVE)
    ]
    assert await AdminStore.of(store).attribute_history(tenant, "u1", "lives_in", entity="company") == []
