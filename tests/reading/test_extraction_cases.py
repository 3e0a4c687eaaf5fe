"""The rules extractor on our labelled utterances (tests/data/extraction_cases.jsonl).

Store/skip right >= 95%, type right >= 90%, entity/attribute/value exact >= 85% where labelled,
every hypothetical or rhetorical claim at most 0.3 confident, no secret stored. On failure the
message is the per-category confusion and every failed case (see bench/extraction_eval.py).
"""

from __future__ import annotations

import pytest

from bench.extraction_eval import load_cases, score_rules


def _assert_meets_the_bar(split: str) -> None:
    score = score_rules(split)
    summary = score.summary()
    report = score.report()
    assert summary["cases"] > 0
    assert summary["store/skip"] >= 0.95, report
    assert summary["type"] >= 0.90, report
    assert summary["entity/attribute/value"] >= 0.85, report
    assert summary["low confidence capped"] == 1.0, report
    assert summary["secrets stored"] == 0, report


def test_the_set_is_ours_and_large_enough() -> None:
    cases = load_cases("all")
    assert len(cases) >= 200
    assert len({case["id"] for case in cases}) == len(cases)
    assert {case["label"] for case in cases} == {"store", "skip", "low_confidence"}
    heldout = sum(case["split"] == "heldout" for case in cases)
    assert 0.2 <= heldout / len(cases) <= 0.3
    categories = {case["category"] for case in cases}
    assert categories >= {"seed", "correction", "decision", "procedure", "instruction", "team", "multi", "date",
                          "hypothetical", "rhetorical", "sarcasm", "secret", "injected", "echo", "retraction",
                          "volatile"}  # fmt: skip


def test_rules_extractor_on_the_dev_split() -> None:
    _assert_meets_the_bar("dev")


@pytest.mark.parametrize("split", ["heldout"])
def test_rules_extractor_on_the_held_out_split(split: str) -> None:
    _assert_meets_the_bar(split)
