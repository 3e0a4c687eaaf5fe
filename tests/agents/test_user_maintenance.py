"""Maintenance of some users on SQLite and PostgreSQL: only those users are merged and re-scored,
and two workers' sweeps, split by partition, cover every user exactly once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from agents.consolidate import Consolidator
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
