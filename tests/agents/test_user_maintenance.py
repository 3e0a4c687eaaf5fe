"""Maintenance of some users on SQLite and PostgreSQL: only those users are merged and re-scored,
and two workers' sweeps, split by partition, cover every user exactly once."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from agents.consolidate import Consolidator
from agents.consolidate.schedule import ConsolidationSchedule
from agents.ownership import owned_users
from agents.user_maintenance import Maintenance, sweep
from beliefs.records import Memory, MemoryState
from sinks.sql.manage_store import MaintenanceStore
from sinks.sql.store import SqlMemoryStore
from tests.agents.manage_helpers import column, seed, stored

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
VECTOR = [1.0] + [0.0] * 383


def mem(tenant: str, user: str, key: str, text: str, days: float = 10.0) -> Memory:
    at = NOW - timedelta(days=days)
    return Memory(
        id=f"{tenant}-{user}-{key}",
        tenant_id=tenant,
        user_id=user,
        text=text,
        type="preference",
        topic="work",
        importance=0.5,
        confidence=0.9,
        created_at=at,
        valid_from=at,
    )


def twins(tenant: str, user: str) -> list[Memory]:
    """Two near-duplicates of one user (same stored embedding): consolidation merges them."""
    return [
        mem(tenant, user, "a", "User prefers Python."),
        mem(tenant, user, "b", "User mentioned preferring Python.", days=9.0),
    ]


def maintenance(store: SqlMemoryStore) -> Maintenance:
    maintenance_store = MaintenanceStore.of(store)
    return Maintenance(maintenance_store, None, Consolidator(maintenance_store, None, None), batch_size=3)


async def test_only_the_given_users_are_consolidated_and_rescored(store: SqlMemoryStore, tenant: str) -> None:
    rows = twins(tenant, "u1") + twins(tenant, "u2")
    await seed(store, [(m, VECTOR) for m in rows])

    report = await maintenance(store).users([(tenant, "u1")], now=NOW)

    assert (report.users, report.merged) == (1, 1)
    memories = await stored(store, tenant)
    active = {m.id: m for m in memories.values() if m.state == MemoryState.ACTIVE}
    assert sum(m.user_id == "u1" for m in active.values()) == 1  # the twins became one canonical memory
    assert sum(m.user_id == "u2" for m in active.values()) == 2  # another user's are left alone
    scores = await column(store, "decay_score", list(memories))
    assert all(scores[i] is not None for i, m in active.items() if m.user_id == "u1")
    assert all(scores[i] is None for i, m in active.items() if m.user_id == "u2")


async def test_two_workers_sweeps_cover_every_user_once(store: SqlMemoryStore, tenant: str) -> None:
    users = [f"u{i:02d}" for i in range(24)]
    rows = [mem(tenant, user, str(n), f"User fact {n} of {user}.", days=n + 1) for user in users for n in range(2)]
    await seed(store, [(m, None) for m in rows])
    job = maintenance(store)
    swept: list[list[tuple[str, str]]] = []

    def keeping(assigned: set[int]):
        def mine(listed: list[tuple[str, str]]) -> list[tuple[str, str]]:
            kept = owned_users(listed, assigned, 4)
            swept.append(kept)
            return kept

        return mine

    first = await sweep(job, keeping({0, 2}), now=NOW, page=5, tenant_id=tenant)
    second = await sweep(job, keeping({1, 3}), now=NOW, page=5, tenant_id=tenant)

    every = [user for page in swept for user in page]
    assert sorted(every) == sorted((tenant, u) for u in users)  # each user once, by one worker
    assert first.complete and second.complete
    assert (first.users + second.users, first.rows + second.rows) == (24, 48)
    assert first.users and second.users
    scores = await column(store, "decay_score", [m.id for m in rows])
    assert all(score is not None for score in scores.values())


async def test_a_rebalance_cuts_a_sweep_short(store: SqlMemoryStore, tenant: str) -> None:
    await seed(store, [(mem(tenant, f"u{i}", "x", f"User fact {i}."), None) for i in range(6)])
    report = await sweep(maintenance(store), lambda listed: listed, still_owner=lambda: False, tenant_id=tenant)
    assert (report.users, report.complete) == (0, False)


async def test_the_scheduled_pass_previews_first_keeps_its_diff_then_applies(
    store: SqlMemoryStore, tenant: str, tmp_path
) -> None:
    """Issue 29, item 16: the worker's first consolidation pass is a dry run whose diff is kept;
    the pass after it writes (and keeps what it wrote)."""
    await seed(store, [(m, VECTOR) for m in twins(tenant, "u1")])
    schedule = ConsolidationSchedule(tmp_path / "consolidation")
    scheduled = replace(maintenance(store), schedule=schedule)
    mine = lambda users: [u for u in users if u[0] == tenant]  # noqa: E731

    preview = await sweep(scheduled, mine, consolidate=True, now=NOW)

    active = [m for m in (await stored(store, tenant)).values() if m.state == MemoryState.ACTIVE]
    assert preview.complete and len(active) == 2  # nothing merged yet
    (kept,) = [json.loads(line) for line in schedule.diff_path.read_text().splitlines()]
    assert kept["dry_run"] is True and len(kept["groups"]) == 1 and not kept["groups"][0]["applied"]
    assert not schedule.dry_run  # the preview was made: the next pass writes

    await sweep(scheduled, mine, consolidate=True, now=NOW)

    active = [m for m in (await stored(store, tenant)).values() if m.state == MemoryState.ACTIVE]
    assert len(active) == 1
    applied = json.loads(schedule.diff_path.read_text().splitlines()[-1])
    assert applied["dry_run"] is False and applied["groups"][0]["applied"]


async def test_a_decay_only_pass_never_consolidates(store: SqlMemoryStore, tenant: str, tmp_path) -> None:
    await seed(store, [(m, VECTOR) for m in twins(tenant, "u1")])
    schedule = ConsolidationSchedule(tmp_path / "consolidation")

    await replace(maintenance(store), schedule=schedule).users([(tenant, "u1")], consolidate=False, now=NOW)

    active = [m for m in (await stored(store, tenant)).values() if m.state == MemoryState.ACTIVE]
    assert len(active) == 2 and not schedule.diff_path.exists() and schedule.dry_run
