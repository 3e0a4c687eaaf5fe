"""The house has floors: no module imports a package of a higher floor (STYLE.md, point 1).

beliefs (the belief model and its pure rules) < reading (text turned into claims and labels, pure)
< streams (faust app, topics, settings, broker) < sinks (contracts and their SQL / vector / Kafka
implementations) < embedding (the sentence model) < llm (Claude: client, calls, prompts, the Claude
extractor) < agents (stream agents, windowed jobs, the projector's loop) < sidecar (the recall
service) < launch (CLI and process wiring) < bench.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FLOORS = [
    "beliefs", "reading", "streams", "sinks", "embedding", "llm", "agents", "sidecar", "launch", "bench",
]  # fmt: skip
FLOOR = {package: level for level, package in enumerate(FLOORS)}


def modules() -> list[Path]:
    return sorted(p for package in FLOORS for p in (ROOT / package).rglob("*.py"))


def imported_packages(path: Path) -> set[str]:
    """Top-level packages of ours that a module imports (anywhere in it, lazily or not)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found & set(FLOORS)


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_import_runs_up_a_floor(path: Path) -> None:
    own = path.relative_to(ROOT).parts[0]
    higher = sorted(p for p in imported_packages(path) if FLOOR[p] > FLOOR[own])
    assert not higher, f"{path.relative_to(ROOT)} ({own}) imports from a higher floor: {higher}"


def test_the_ground_floor_imports_nothing_of_ours_but_itself() -> None:
    for path in (ROOT / "beliefs").rglob("*.py"):
        assert imported_packages(path) <= {"beliefs"}, path


def test_reading_needs_nothing_but_the_belief_model() -> None:
    """Turning text into claims and labels is pure: no broker, store, model or LLM client."""
    for path in (ROOT / "reading").rglob("*.py"):
        assert imported_packages(path) <= {"beliefs", "reading"}, path


def test_the_recall_service_does_not_import_the_worker_package() -> None:
    """The sidecar types what it asks of the worker's parts by narrow contracts (`Projection`,
    `Consolidation`); the process wiring (`launch`) hands it the real ones."""
    for path in (ROOT / "sidecar").rglob("*.py"):
        assert "agents" not in imported_packages(path), path
