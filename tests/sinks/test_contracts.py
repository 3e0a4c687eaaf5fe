"""The store is split by contract: the SQL store implements every one, and callers hold the narrow one.

Each caller in `agents/` and `sidecar/` is typed with the protocol it uses (`sinks.contracts`,
`sinks.recall`, `sinks.manage`, `sinks.vector_outbox`), never with the whole SQL store; and a
capability is a parameter or a protocol method, never found out with `hasattr`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from sinks import admin, contracts, manage
from sinks.portability import ExportReads, ExportSource
from sinks.recall import RecallStore
from sinks.reindex import PointSource
from sinks.sql import SqlMemoryStore
from sinks.sql.admin import AdminStore
from sinks.sql.intake import SqlIntake
from sinks.sql.manage_store import MaintenanceStore
from sinks.sql.snapshot import SqlExportSnapshot
from sinks.sql.vector_outbox import SqlVectorOutbox
from sinks.sql.webhooks import WebhookDeliveries
from sinks.vector_outbox import VectorOutbox

ROOT = Path(__file__).resolve().parents[2]
STORE_CONTRACTS = [
    contracts.IngestSink,
    contracts.EventOutbox,
    contracts.JobIntake,
    contracts.BeliefReads,
    contracts.GovernanceWrites,
    contracts.ContestedSlots,
    contracts.Pingable,
    contracts.MemoryStore,
    RecallStore,
]
MAINTENANCE_CONTRACTS = [manage.DecayStore, manage.EpisodeRetentionStore, manage.ConsolidationStore]


@pytest.mark.parametrize("contract", STORE_CONTRACTS, ids=lambda c: c.__name__)
def test_the_sql_store_implements_every_store_contract(contract: type) -> None:
    assert isinstance(SqlMemoryStore("sqlite+aiosqlite://"), contract)


@pytest.mark.parametrize("contract", MAINTENANCE_CONTRACTS, ids=lambda c: c.__name__)
def test_the_sql_maintenance_implements_every_maintenance_contract(contract: type) -> None:
    assert isinstance(MaintenanceStore.of(SqlMemoryStore("sqlite+aiosqlite://")), contract)


def test_the_sql_sides_over_the_stores_engine_implement_theirs() -> None:
    store = SqlMemoryStore("sqlite+aiosqlite://")
    assert isinstance(SqlIntake.of(store), contracts.IntakeQueue)
    assert isinstance(WebhookDeliveries(store._engine), contracts.WebhookQueue)
    assert isinstance(AdminStore.of(store), admin.Administration)
    assert isinstance(SqlVectorOutbox.of(store), VectorOutbox)
    assert isinstance(store, ExportSource) and isinstance(SqlExportSnapshot(None), ExportReads)


#: Every contract a store-side caller may hold: each method is declared by exactly one of them.
EVERY_CONTRACT = [
    *STORE_CONTRACTS,
    *MAINTENANCE_CONTRACTS,
    contracts.IntakeQueue,
    contracts.WebhookQueue,
    admin.Administration,
    VectorOutbox,
    PointSource,
    ExportSource,
    ExportReads,
]


def declared(protocol: type) -> set[str]:
    """The methods a protocol declares itself (not those it inherits)."""
    return {name for name, value in vars(protocol).items() if callable(value) and not name.startswith("_")}


def test_no_contract_repeats_another_contracts_method() -> None:
    owners: dict[str, list[str]] = {}
    for protocol in EVERY_CONTRACT:
        for name in declared(protocol):
            owners.setdefault(name, []).append(protocol.__name__)
    assert {name: found for name, found in owners.items() if len(found) > 1} == {}


def test_the_vector_outbox_is_not_part_of_the_whole_store() -> None:
    """The projector's reads and marks live on `SqlVectorOutbox` only: neither the whole-store
    protocol nor the SQL store carries them, so nothing reaches the outbox around its contract."""
    outbox = declared(VectorOutbox)
    assert outbox == {
        "pending_vectors", "mark_vectors_synced", "pending_episode_vectors", "mark_episode_vectors_synced",
        "tombstones", "clear_tombstones", "backlog",
    }  # fmt: skip
    whole = {name for protocol in contracts.MemoryStore.__mro__ for name in declared(protocol)}
    store = SqlMemoryStore("sqlite+aiosqlite://")
    assert not outbox & whole
    assert not outbox & set(dir(store))
    assert SqlVectorOutbox.of(store) is SqlVectorOutbox.of(store)  # one outbox: handed-out versions are kept


def sources(*packages: str) -> list[Path]:
    return sorted(p for package in packages for p in (ROOT / package).rglob("*.py"))


def test_callers_hold_a_narrow_contract_not_the_whole_store() -> None:
    """Neither the aggregate protocol nor anything of `sinks.sql` but its errors (which the contracts raise)."""
    offenders = [
        f"{path.relative_to(ROOT)}: {node.module}.{alias.name}"
        for path in sources("agents", "sidecar")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
        if alias.name == "MemoryStore" or (node.module.startswith("sinks.sql") and node.module != "sinks.sql.errors")
    ]
    assert not offenders


def test_no_capability_is_found_out_with_hasattr() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in sources("agents", "sidecar", "launch")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "hasattr"
    ]
    assert not offenders
