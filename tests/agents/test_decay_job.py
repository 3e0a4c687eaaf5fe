"""The decay job on SQLite and PostgreSQL: scores, pages, expiry, vector payloads, idempotency."""

from __future__ import annotations

import asyncio
import math
from datetime import UTC, datetime, timedelta

import pytest
from projection import projector_of

from agents.decay_job import plan_batch, run_decay
from agents.periodic import run_periodically
from beliefs.decay import decay_score
from beliefs.errors import ConfigurationError
from beliefs.records import Memory, MemoryState
from sinks.errors import SinkUnavailableError
from sinks.sql.manage_store import MaintenanceStore
from sinks.sql.store import SqlMemoryStore
from sinks.sql.tables import memories
from tests.agents.manage_helpers import (
    RecordingVectors,
    column,
    seed,
    stored,
)

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
HALF_LIFE = math.log(2) / 0.02
VECTOR = [1.0] + [0.0] * 383


def mem(tenant: str, key: str, days: float, **fields) -> Memory:
    created = NOW - timedelta(days=days)
    base = {
        "id": f"{tenant}-{key}",
        "tenant_id": tenant,
        "user_id": "u1",
        "text": f"The user fact {key}.",
        "type": "fact",
        "topic": "work",
        "importance": 0.5,
        "confidence": 0.9,
        "created_at": created,
        "valid_from": created,
    }
    return Memory(**(base | fields))


async def _synced(store: SqlMemoryStore, tenant: str) -> None:
    """As if the projector had written every point of the tenant already."""
    async with store._engine.begin() as conn:
        await conn.execute(memories.update().where(memories.c.tenant_id == tenant).values(vector_dirty=False))


async def test_scores_active_rows_in_pages(store: SqlMemoryStore, tenant: str) -> None:
    rows = [
        mem(tenant, "fresh", 0),
        mem(tenant, "half", HALF_LIFE),
        mem(tenant, "old", 100),
        mem(tenant, "loved", 400, access_count=10),
        mem(tenant, "touched", 400, last_accessed=NOW - timedelta(days=HALF_LIFE), access_count=1),
        mem(tenant, "gone", 100, state=MemoryState.SUPERSEDED, valid_until=NOW),
    ]
    await seed(store, [(m, VECTOR) for m in rows])
    await _synced(store, tenant)
    vectors = RecordingVectors()
    report = await run_decay(MaintenanceStore.of(store), projector_of(store, vectors), NOW, batch_size=2, tenant_id=tenant)

    assert (report.rows, report.updated, report.expired) == (5, 5, 0)
    scores = await column(store, "decay_score", [m.id for m in rows])
    assert scores[f"{tenant}-fresh"] == pytest.approx(1.0)
    assert scores[f"{tenant}-half"] == pytest.approx(0.5, abs=1e-6)
    assert scores[f"{tenant}-old"] == pytest.approx(math.exp(-2), abs=1e-6)
    assert scores[f"{tenant}-loved"] == pytest.approx(1.0)
    assert scores[f"{tenant}-touched"] == pytest.approx(decay_score(HALF_LIFE, 1), abs=1e-6)
    assert scores[f"{tenant}-gone"] is None  # history is not re-scored
    await projector_of(store, vectors).drain()  # the index follows the outbox
    assert vectors.payload(f"{tenant}-half")["decay_score"] == 0.5
    assert vectors.payload(f"{tenant}-old")["decay_score"] == 0.14
    assert f"{tenant}-gone" not in vectors.points


async def test_second_run_at_the_same_instant_changes_nothing(store: SqlMemoryStore, tenant: str) -> None:
    await seed(store, [(mem(tenant, str(i), i * 3.0), VECTOR) for i in range(7)])
    await _synced(store, tenant)
    maintenance = MaintenanceStore.of(store)
    first = await run_decay(maintenance, None, NOW, batch_size=3, tenant_id=tenant)
    await projector_of(store, RecordingVectors()).drain()
    before = await stored(store, tenant)
    vectors = RecordingVectors()
    second = await run_decay(maintenance, None, NOW, batch_size=3, tenant_id=tenant)
    await projector_of(store, vectors).drain()
    assert first.updated == 7
    assert second.updated == 0 and second.payloads == 0 and not [i for i in vectors.points if i.startswith(tenant)]
    assert await stored(store, tenant) == before


async def test_later_run_moves_payloads_only_when_the_rounded_score_moves(
    store: SqlMemoryStore, tenant: str
) -> None:
    await seed(store, [(mem(tenant, "a", 10), VECTOR), (mem(tenant, "b", 10, access_count=10), VECTOR)])
    await _synced(store, tenant)
    maintenance = MaintenanceStore.of(store)
    await run_decay(maintenance, None, NOW, tenant_id=tenant)
    await projector_of(store, RecordingVectors()).drain()
    vectors = RecordingVectors()
    projector = projector_of(store, vectors)
    await run_decay(maintenance, projector, NOW + timedelta(hours=1), tenant_id=tenant)
    await projector.drain()
    assert f"{tenant}-a" not in vectors.points  # 0.8187 -> 0.8180: same payload bucket
    assert f"{tenant}-b" not in vectors.points  # fully protected: unchanged
    scores = await column(store, "decay_score", [f"{tenant}-a"])
    assert scores[f"{tenant}-a"] == pytest.approx(math.exp(-0.02 * (10 + 1 / 24)))
    await run_decay(maintenance, projector, NOW + timedelta(days=5), tenant_id=tenant)
    await projector.drain()
    assert vectors.payload(f"{tenant}-a")["decay_score"] == round(math.exp(-0.3), 2)


async def test_expired_volatile_facts_leave_the_current_belief(store: SqlMemoryStore, tenant: str) -> None:
    past, future = NOW - timedelta(hours=1), NOW + timedelta(days=2)
    rows = [
        (mem(tenant, "tokyo", 3, expires_at=past), VECTOR),
        (mem(tenant, "oncall", 1, expires_at=future), VECTOR),
        (mem(tenant, "noembed", 3, expires_at=past), None),
    ]
    await seed(store, rows)
    await _synced(store, tenant)
    vectors = RecordingVectors()
    report = await run_decay(MaintenanceStore.of(store), None, NOW, tenant_id=tenant)
    assert report.expired == 2
    after = await stored(store, tenant)
    tokyo = after[f"{tenant}-tokyo"]
    assert tokyo.state is MemoryState.EXPIRED and tokyo.valid_until == past and tokyo.decay_score is None
    assert after[f"{tenant}-oncall"].state is MemoryState.ACTIVE
    assert after[f"{tenant}-oncall"].decay_score == pytest.approx(math.exp(-0.02))
    ids = [f"{tenant}-tokyo", f"{tenant}-noembed", f"{tenant}-oncall"]
    dirty = await column(store, "vector_dirty", ids)
    # expired: its state changed; oncall: its first score; noembed has no point to rewrite
    assert dirty == {f"{tenant}-tokyo": True, f"{tenant}-noembed": False, f"{tenant}-oncall": True}
    await projector_of(store, vectors).drain()
    assert vectors.payload(f"{tenant}-tokyo")["state"] == "expired"
    assert not any((await column(store, "vector_dirty", ids)).values())
    again = await run_decay(MaintenanceStore.of(store), None, NOW, tenant_id=tenant)
    assert again.expired == 0


async def test_a_vector_outage_delays_the_payloads_and_loses_none(store: SqlMemoryStore, tenant: str) -> None:
    """SQL commits whatever the index does; the outbox keeps the payload until the index is back."""
    await seed(store, [(mem(tenant, "a", 10), VECTOR)])
    await _synced(store, tenant)
    vectors = RecordingVectors()
    vectors.failing = True
    projector = projector_of(store, vectors)
    await run_decay(MaintenanceStore.of(store), projector, NOW, tenant_id=tenant)
    assert (await column(store, "decay_score", [f"{tenant}-a"]))[f"{tenant}-a"] is not None
    with pytest.raises(SinkUnavailableError):
        await projector.drain()
    vectors.failing = False
    await projector.drain()
    assert vectors.payload(f"{tenant}-a")["decay_score"] == round(math.exp(-0.2), 2)


async def test_without_a_vector_index_only_sql_changes(store: SqlMemoryStore, tenant: str) -> None:
    await seed(store, [(mem(tenant, "a", 0), None)])
    report = await run_decay(MaintenanceStore.of(store), None, NOW, tenant_id=tenant)
    assert report.payloads == 0 and report.updated >= 1


@pytest.mark.parametrize("kwargs", [{"batch_size": 0}, {"lam": -1.0}, {"boost_cap": 0.0}])
async def test_bad_parameters_are_refused(store: SqlMemoryStore, kwargs: dict) -> None:
    with pytest.raises(ConfigurationError):
        await run_decay(MaintenanceStore.of(store), None, NOW, **kwargs)


def test_plan_batch_is_pure_and_skips_expired_rows() -> None:
    import numpy as np

    changes = plan_batch(
        ["a", "b", "c"],
        np.array([0.0, HALF_LIFE, 5.0]),
        np.array([0, 0, 0]),
        np.array([1.0, np.nan, 0.3]),
        np.array([False, False, True]),
        0.02,
        10.0,
    )
    assert changes.expired_ids == ["c"]
    assert changes.score_ids == ["b"]  # "a" is already 1.0
    assert changes.payloads == {"b": {"decay_score": 0.5}}


async def test_periodic_runner_runs_until_stopped_and_survives_failures() -> None:
    stop = asyncio.Event()
    calls: list[int] = []

    async def job() -> None:
        calls.append(len(calls))
        if len(calls) == 2:
            raise RuntimeError("one bad run")
        if len(calls) == 4:
            stop.set()

    completed = await asyncio.wait_for(run_periodically(0.01, job, stop, name="test"), timeout=5)
    assert len(calls) == 4 and completed == 3


async def test_periodic_runner_stops_during_its_wait() -> None:
    stop = asyncio.Event()
    ran = asyncio.Event()

    async def job() -> None:
        ran.set()

    task = asyncio.create_task(run_periodically(3600, job, stop))
    await asyncio.wait_for(ran.wait(), timeout=5)
    stop.set()
    assert await asyncio.wait_for(task, timeout=5) == 1
    with pytest.raises(ConfigurationError):
        await run_periodically(0, job, stop)


async def test_a_failed_run_is_retried_with_back_off_not_at_the_next_tick() -> None:
    stop = asyncio.Event()
    started: list[float] = []
    loop = asyncio.get_running_loop()

    async def job() -> None:  # an hourly job whose first three runs fail (the database is away)
        started.append(loop.time())
        if len(started) == 5:
            stop.set()
        elif len(started) <= 3:
            raise RuntimeError("database is away")

    task = asyncio.create_task(run_periodically(3600, job, stop, retry_initial_s=0.05, retry_max_s=0.1))
    await asyncio.wait_for(_until(lambda: len(started) >= 4), timeout=5)
    gaps = [later - earlier for earlier, later in zip(started, started[1:], strict=False)]
    assert 0.05 <= gaps[0] < 0.09 and 0.1 <= gaps[1] < 0.5 and 0.1 <= gaps[2] < 0.5  # doubling, capped
    await asyncio.sleep(0.3)
    assert len(started) == 4  # after a success, the next run waits for the interval again
    stop.set()
    assert await asyncio.wait_for(task, timeout=5) == 1


async def _until(condition) -> None:
    while not condition():
        await asyncio.sleep(0.01)
