"""The store is split by contract: the SQL store implements every one, and callers hold the narrow one.

Each caller in `agents/` and `sidecar/` is typed with the protocol it uses (`sinks.contracts`,
`sinks.recall`, `sinks.maintenance`, `sinks.vector_outbox`), never with the whole SQL store; and a
capability is a parameter or a protocol method, never found out with `hasattr`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from sinks import admin, contracts, maintenance
from sinks.recall import RecallStore
from sinks.sql import SqlMemoryStore
from sinks.sql.admin import AdminStore
from sinks.sql.intake import SqlIntake
from sinks.sql.maintenance import MaintenanceStore
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
MAINTENANCE_CONTRACTS = [maintenance.DecayStore, maintenance.EpisodeRetentionStore, maintenance.ConsolidationStore]


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
