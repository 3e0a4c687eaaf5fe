"""LoCoMo at equal prompt size: the budget-filled BM25 baselines and their scoring, on a tiny
conversation of our own (not LoCoMo)."""

from __future__ import annotations

import pytest

from bench.locomo import parse_args, run_budget_baselines, sample_questions, sample_turns
from bench.locomo_budget import (
    BudgetBaseline,
    BudgetTally,
    evidence_share,
    format_budget_table,
    parse_budgets,
    turn_windows,
)
from sidecar.recall.budget import estimate_tokens

CONVERSATION = {
    "sample_id": "tiny-2",
    "conversation": {
        "speaker_a": "Noor",
        "speaker_b": "Elias",
        "session_1_date_time": "8:15 am on 2 June, 2024",
        "session_1": [
            {"speaker": "Noor", "dia_id": "D1:1", "text": "Guess what, I finally bought a sailboat."},
            {"speaker": "Elias", "dia_id": "D1:2", "text": "No way! What did you name her?"},
            {"speaker": "Noor", "dia_id": "D1:3", "text": "Her name is Marigold, after my grandmother."},
        ],
        "session_2_date_time": "7:30 pm on 20 June, 2024",
        "session_2": [
            {"speaker": "Elias", "dia_id": "D2:1", "text": "How was the first trip out on the water?"},
            {"speaker": "Noor", "dia_id": "D2:2", "text": "Windy. We reached the lighthouse at dusk and came back soaked."},
            {"speaker": "Elias", "dia_id": "D2:3", "text": "I spent the weekend repainting my kitchen cupboards."},
        ],
    },
    "qa": [
        {"question": "What is the name of Noor's sailboat?", "evidence": ["D1:1", "D1:3"], "category": 4},
        {"question": "Where did the first trip out on the water end?", "evidence": ["D2:2"], "category": 2},
        {"question": "What did Elias repaint?", "evidence": ["D2:3"], "category": 4},
    ],
}

TURNS = list(sample_turns(CONVERSATION))
TEXTS = [t["text"] for t in TURNS]
SESSIONS = [t["session_id"] for t in TURNS]


def test_evidence_share_counts_evidence_turns_anywhere_in_the_answer():
    assert evidence_share(["D2:2", "D1:1", "D1:1"], frozenset({"D1:1", "D1:3"})) == 0.5
    assert evidence_share([], frozenset({"D1:1"})) == 0.0
    with pytest.raises(ValueError):
        evidence_share(["D1:1"], frozenset())


def test_windows_hold_the_neighbours_within_the_session_only():
    assert turn_windows(SESSIONS) == [[0, 1], [0, 1, 2], [1, 2], [3, 4], [3, 4, 5], [4, 5]]


def test_raw_turn_baseline_fills_the_budget_in_bm25_order_without_cutting():
    baseline = BudgetBaseline(TEXTS, [[i] for i in range(len(TEXTS))])
    ranking = baseline.ranking("Elias repaint kitchen cupboards")
    assert ranking[0] == 5
    assert ranking[1:] == sorted(ranking[1:])  # no shared word: ties kept in the order said
    exact = estimate_tokens(TEXTS[5])
    assert baseline.fill("Elias repaint kitchen cupboards", exact) == [5]
    assert baseline.fill("Elias repaint kitchen cupboards", exact - 1) != [5]  # too big: skipped, never cut
    for budget in (5, 20, 40, 400):
        taken = baseline.fill("sailboat name", budget)
        assert sum(estimate_tokens(TEXTS[i]) for i in taken) <= budget


def test_a_smaller_document_after_one_that_does_not_fit_is_still_taken():
    baseline = BudgetBaseline(TEXTS, [[i] for i in range(len(TEXTS))])
    first, second = baseline.ranking("lighthouse at dusk, soaked")[:2]
    assert first == 4 and estimate_tokens(TEXTS[second]) < estimate_tokens(TEXTS[first])
    taken = baseline.fill("lighthouse at dusk, soaked", estimate_tokens(TEXTS[first]) - 1)
    assert first not in taken and second in taken


def test_window_baseline_brings_the_neighbours_and_charges_a_turn_once():
    baseline = BudgetBaseline(TEXTS, turn_windows(SESSIONS))
    everything = sum(estimate_tokens(t) for t in TEXTS)
    taken = baseline.fill("Marigold grandmother", everything)
    assert taken[:2] == [1, 2]  # the best window first: D1:3 with the turn before it
    assert sorted(taken) == list(range(len(TEXTS)))  # the whole conversation fits once, no turn twice
    one_window = baseline.fill("Marigold grandmother", sum(estimate_tokens(TEXTS[i]) for i in (1, 2)))
    assert set(one_window) == {1, 2}  # the best window (D1:3 with D1:2, its session's end)


def test_tally_means_per_budget_and_category_and_the_table():
    tally = BudgetTally((200, 400))
    tally.add("4", 200, 0.5)
    tally.add("4", 400, 1.0)
    tally.add("2", 200, 0.0)
    tally.add("2", 400, 1.0)
    means = tally.means()
    assert means["overall"] == {"n": 2, "200": 25.0, "400": 100.0}
    assert means["4"] == {"n": 1, "200": 50.0, "400": 100.0}
    table = format_budget_table({"x": means}, (200, 400), {"2": "temporal"})
    assert "| x | 2 temporal | 1 | 0.0 | 100.0 |" in table.splitlines()


def test_budget_baselines_score_every_question_at_every_budget():
    questions = {"tiny-2": sample_questions(CONVERSATION)}
    results = run_budget_baselines([CONVERSATION], questions, (15, 1000), lambda _: None)
    for name in ("bm25 (raw turns)", "bm25 (±1-turn windows)"):
        assert results[name]["overall"]["n"] == 3
        assert results[name]["overall"]["1000"] == 100.0  # the whole conversation fits
    # 15 tokens hold one short turn: the raw baseline finds only part of the sailboat's evidence
    assert results["bm25 (raw turns)"]["4"]["15"] < 100.0


def test_budgets_option_parses_and_refuses_in_one_line():
    assert parse_budgets("800,200, 400") == (200, 400, 800)
    assert parse_args(["--budgets", "200,400"]).budgets == (200, 400)
    for bad in ("", "200,x", "0,400"):
        with pytest.raises(ValueError):
            parse_budgets(bad)
    with pytest.raises(SystemExit):
        parse_args(["--budgets", "two hundred"])
