"""Every exception lives in its package's `errors.py`, and each tree's docstring names what is there."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ["beliefs", "reading", "streams", "sinks", "embedding", "llm", "agents", "sidecar", "launch"]


def exception_classes(path: Path) -> list[str]:
    """Classes of the module whose bases name an error or exception (ours or the standard ones)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ClassDef):
            bases = [ast.unparse(base).rsplit(".", 1)[-1] for base in node.bases]
            if any(b.endswith(("Error", "Exception", "Interrupted")) or b == "BeliefstreamError" for b in bases):
                found.append(node.name)
    return found


def modules() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py") if "migrations" not in p.parts)


def test_exceptions_are_declared_only_in_errors_modules() -> None:
    stray = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in modules()
        if path.name != "errors.py"
        for name in exception_classes(path)
    ]
    assert not stray


def test_each_error_tree_names_every_exception_of_its_module() -> None:
    unlisted = []
    for path in modules():
        if path.name != "errors.py":
            continue
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        unlisted += [f"{path.relative_to(ROOT)}: {name}" for name in exception_classes(path) if name not in doc]
    assert not unlisted


def test_every_declared_error_is_raised_or_caught_somewhere() -> None:
    """A declared error nobody raises (nor catches, nor subclasses) is a promise the code does not keep."""
    sources = "\n".join(path.read_text() for path in modules() if path.name != "errors.py")
    trees = "\n".join(path.read_text() for path in modules() if path.name == "errors.py")
    idle = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in modules()
        if path.name == "errors.py"
        for name in exception_classes(path)
        if name not in sources and trees.count(f"({name}") == 0
    ]
    assert not idle
