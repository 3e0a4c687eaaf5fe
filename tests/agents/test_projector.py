"""The vector projector on SQLite and PostgreSQL with a real Qdrant Edge shard: after a drain the
index holds exactly SQL's points (ids and payloads) whatever wrote them, an index that was down
loses nothing, and a process killed between the SQL commit and the projection loses nothing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from projection import DownIndex, expected_points, index_matches_sql, indexed_points, projector_of

from agents.consolidate import consolidate
from agents.decay_job import run_decay
from agents.metrics import ProjectionMetrics
from beliefs.records import Memory, MemoryState
from sinks.errors import SinkUnavailableError
from sinks.sql.manage_store import MaintenanceStore
from sinks.sql.store import SqlMemoryStore
from sinks.vectors.edge import EdgeVectorIndex
from tests.agents.manage_helpers import seed
from tests.sinks.episode_builders import T0, VECTOR, kept, said


@pytest.fixture
async def store(isolated_sql_url: str) -> AsyncIterator[SqlMemoryStore]:
    """A database of this test alone: a drain projects every pending row in it."""
    sql = SqlMemoryStore(isolated_sql_url)
    await sql.setup()
    try:
        yield sql
    finally:
        await sql.close()


@pytest.fixture
async def shard(tmp_path) -> AsyncIterator[EdgeVectorIndex]:
    index = EdgeVectorIndex(tmp_path / "vectors", dim=len(VECTOR))
    await index.setup()
    try:
        yield index
    finally:
        await index.close()


def mem(tenant: str, key: str, text: str, days: float = 3, **fields) -> Memory:
    at = T0 - timedelta(days=days)
    base = {"id": f"{tenant}-{key}", "tenant_id": tenant, "user_id": "u1", "text": text, "type": "preference",
            "topic": "work", "importance": 0.5, "confidence": 0.9, "source_turn_ids": [f"turn-{key}"],
            "evidence": text, "created_at": at, "valid_from": at}  # fmt: skip
    return Memory(**(base | fields))


async def test_ingest_revocation_and_episodes_reach_the_index_after_an_outage(store, shard, tenant) -> None:
    index = DownIndex(shard)
    index.down = True
    projector = projector_of(store, index)
    turn = said(tenant, "I prefer tea in the afternoon.")
    memory = mem(tenant, "tea", "The user prefers tea.")
    result = await store.write([kept(turn, memory)])
    await store.revoke(tenant, memory.id, T0)  # a payload change on top of the upsert

    with pytest.raises(SinkUnavailableError):
        await projector.drain()
    backlog = await projector.backlog()
    assert backlog.points == 2 and backlog.oldest_at is not None  # the memory and its episode
    assert await indexed_points(shard, tenant) == {}

    index.down = False
    assert await projector.drain() == 2
    assert await index_matches_sql(store, shard, tenant)
    assert (await indexed_points(shard, tenant))[memory.id]["state"] == MemoryState.REVOKED.value
    assert result.episodes[0].id in await indexed_points(shard, tenant)
    assert (await projector.backlog()).points == 0
    assert await projector.drain() == 0  # idempotent: nothing owed, nothing written


async def test_a_kill_between_commit_and_projection_loses_nothing(isolated_sql_url, shard, tenant) -> None:
    """The first process commits and dies before projecting; the next one projects at its start."""
    first = SqlMemoryStore(isolated_sql_url)
    await first.setup()
    memory = mem(tenant, "tea", "The user prefers tea.")
    await first.write([kept(said(tenant, "I prefer tea."), memory)])
    await first.close()  # killed: no projector ever ran

    second = SqlMemoryStore(isolated_sql_url)
    await second.setup()
    try:
        projector = projector_of(second, shard)
        stop = asyncio.Event()
        running = asyncio.create_task(projector.run(stop))
        assert await projector.settle(30.0)
        stop.set()
        await running
        assert await index_matches_sql(second, shard, tenant)
        assert set(await expected_points(second, tenant)) >= {memory.id}
    finally:
        await second.close()


async def test_the_running_projector_backs_off_while_down_and_catches_up(store, shard, tenant) -> None:
    index = DownIndex(shard)
    index.down = True
    metrics = ProjectionMetrics(registry=None)
    projector = projector_of(store, index, on_backlog=lambda b: metrics.observe(b.points, b.oldest_at))
    stop = asyncio.Event()
    running = asyncio.create_task(projector.run(stop))
    try:
        await store.write([kept(said(tenant, "I prefer tea."), mem(tenant, "tea", "The user prefers tea."))])
        projector.wake()
        while index.refused < 3:  # several attempts, each after a longer pause
            await asyncio.sleep(0.01)
        assert projector.failing and not await projector.settle(1.0)  # nobody waits on a down index
        while metrics.backlog._value.get() != 2:
            await asyncio.sleep(0.01)
        assert metrics.oldest_age.collect()[0].samples[0].value >= 0
        index.down = False
        while not await index_matches_sql(store, shard, tenant) or projector.failing:
            await asyncio.sleep(0.02)
        assert await projector.settle(5.0) and metrics.backlog._value.get() == 0
    finally:
        stop.set()
        await running


async def test_erasure_and_retention_leave_tombstones_the_projector_deletes(store, shard, tenant) -> None:
    projector = projector_of(store, shard)
    old = said(tenant, "We met at the harbour.", minute=0)
    gone_user = said(tenant, "I live in Oslo.", user="u2")
    await store.write([kept(old, retention_days=1), kept(said(tenant, "Kept forever.")),
                       kept(gone_user, mem(tenant, "oslo", "The user lives in Oslo.", user_id="u2"))])  # fmt: skip
    await projector.drain()
    assert len(await indexed_points(shard, tenant)) == 4

    await run_decay(MaintenanceStore.of(store), projector, T0 + timedelta(days=2), tenant_id=tenant)
    report = await store.erase_user(tenant, "u2")
    assert len(report.memory_ids) == 1 and len(report.episode_ids) == 1
    assert (await projector.backlog()).points == 3  # one expired episode, the user's memory and episode
    await projector.drain()
    assert await index_matches_sql(store, shard, tenant)
    assert len(await indexed_points(shard, tenant)) == 1


async def test_a_revived_id_keeps_its_point(store, shard, tenant) -> None:
    """Erased, then written again with the same id before the projector ran: the point stays."""
    projector = projector_of(store, shard)
    turn = said(tenant, "I prefer tea.", user="u2")
    memory = mem(tenant, "tea", "The user prefers tea.", user_id="u2")
    await store.write([kept(turn, memory)])
    erased = await store.erase_user(tenant, "u2")
    back = turn.model_copy(update={"accepted_at": erased.erased_at + timedelta(seconds=1)})  # the user came back
    await store.write([kept(back, memory)])
    await projector.drain()
    assert memory.id in await indexed_points(shard, tenant)
    assert await index_matches_sql(store, shard, tenant)


async def test_consolidation_and_decay_follow_through_the_outbox(store, shard, tenant) -> None:
    projector = projector_of(store, shard)
    rows = [mem(tenant, "a", "User prefers Python."), mem(tenant, "b", "User prefers Python.", days=2),
            mem(tenant, "c", "User lives in Oslo.", expires_at=T0 - timedelta(hours=1)),
            mem(tenant, "d", "User likes long walks.", days=40)]  # fmt: skip
    apart = [VECTOR, VECTOR, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]  # only a and b are near-duplicates
    await seed(store, list(zip(rows, apart, strict=True)))
    await projector.drain()

    diff = await consolidate(MaintenanceStore.of(store), projector, None, tenant, "work", dry_run=False)
    decay = await run_decay(MaintenanceStore.of(store), projector, T0, tenant_id=tenant)
    assert [sorted(g.member_ids) for g in diff.groups] == [[f"{tenant}-a", f"{tenant}-b"]] and diff.groups[0].applied
    assert decay.expired == 1 and decay.payloads >= 2
    await projector.drain()

    assert await index_matches_sql(store, shard, tenant)
    points = await indexed_points(shard, tenant)
    assert points[f"{tenant}-a"]["state"] == points[f"{tenant}-b"]["state"] == MemoryState.CONSOLIDATED.value
    assert points[diff.groups[0].canonical_id]["state"] == MemoryState.ACTIVE.value
    assert points[f"{tenant}-c"]["state"] == MemoryState.EXPIRED.value
    assert points[f"{tenant}-d"]["decay_score"] is not None
