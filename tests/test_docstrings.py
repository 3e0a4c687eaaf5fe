"""Docstrings say what the code is and why; measured figures live in docs/benchmarks.md."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ["beliefs", "reading", "streams", "sinks", "embedding", "llm", "agents", "sidecar", "launch"]

#: A number with a unit of time, rate, share or storage: what a benchmark reports.
FIGURE = re.compile(r"\d\s?(?:ms|µs|us)\b|\d\s?%|\d\s?/s\b|\d\s?(?:GB|GiB)\b|\bp(?:50|95|99)\b")


def test_no_docstring_carries_a_benchmark_figure() -> None:
    documented = ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
    found = [
        f"{path.relative_to(ROOT)}: {match.group(0)!r}"
        for path in sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, documented)
        for match in FIGURE.finditer(ast.get_docstring(node) or "")
    ]
    assert not found, "figures belong in docs/benchmarks.md"
