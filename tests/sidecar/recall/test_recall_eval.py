"""Our recall evaluation set: the CI slice runs on both databases and nothing harmful comes back.

The full set runs with `bench/recall_eval.py` (figures in docs/benchmarks.md).
"""

from __future__ import annotations

import pytest

from bench.recall_eval import HARMFUL_KINDS, Outcome, Scenario, evaluate, load, score


def scenario(expect=(), harmful=None) -> Scenario:
    memories = [{"key": k, "text": k} for k in ("a", "b", "c", "d")]
    return Scenario("s", "rule", memories, {"query": "q"}, list(expect), dict(harmful or {}))


def test_score_counts_precision_recall_and_harmful_by_kind() -> None:
    outcomes = [
        Outcome(scenario(expect=["a", "b"], harmful={"c": "superseded"}), ["a", "c", "d"]),
        Outcome(scenario(expect=["a"], harmful={"b": "sensitive"}), ["a"]),
    ]
    report = score(outcomes)
    assert (report.returned, report.expected, report.expected_returned) == (4, 3, 2)
    assert report.precision == pytest.approx(2 / 4) and report.recall == pytest.approx(2 / 3)
    assert report.harmful_rate == pytest.approx(1 / 4)
    assert dict(report.harmful_by_kind) == {"superseded": 1} and report.failures == ["s"]


def test_score_of_nothing_returned_is_not_harmful() -> None:
    report = score([Outcome(scenario(expect=["a"]), [])])
    assert (report.precision, report.recall, report.harmful_rate) == (1.0, 0.0, 0.0)


def test_a_scenario_naming_an_unknown_memory_or_kind_is_refused() -> None:
    raw = {"id": "x", "rule": "r", "memories": [{"key": "a", "text": "t"}], "request": {}}
    with pytest.raises(ValueError, match="no memory"):
        Scenario.of(raw | {"expect": ["zz"]})
    with pytest.raises(ValueError, match="unknown harmful kind"):
        Scenario.of(raw | {"harmful": {"a": "creepy"}})


def test_the_set_covers_every_harmful_kind_and_has_a_ci_slice() -> None:
    scenarios = load()
    kinds = {kind for s in scenarios for kind in s.harmful.values()}
    assert kinds == set(HARMFUL_KINDS)
    assert 10 <= sum(s.ci for s in scenarios) < len(scenarios)


async def test_recall_eval_ci_slice_returns_nothing_harmful(recall_store, edge_vectors, minilm) -> None:
    outcomes = await evaluate([s for s in load() if s.ci], recall_store, edge_vectors, minilm)
    report = score(outcomes)
    assert report.harmful_returned == 0, report.as_dict()
    assert report.recall >= 0.9, report.as_dict()
