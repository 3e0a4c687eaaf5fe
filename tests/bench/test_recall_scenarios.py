"""The recall scenarios from raw turns: the files follow their schema and split, the judgment reads
what the assistant sees, and a handful of dev scenarios run end to end through a real `beliefstream dev`."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from bench.recall_scenario_data import (
    CATEGORIES,
    HARM_KINDS,
    ScenarioError,
    load,
    load_file,
    parse,
    split_files,
)
from bench.recall_scenario_score import Verdict, duplicate_tokens, judge, presented_as_current, tally
from bench.recall_scenarios import as_json, main

SCENARIOS = load()


def test_the_set_is_broad() -> None:
    counts = Counter(s.category for s in SCENARIOS)
    assert len(SCENARIOS) >= 180
    assert set(counts) == set(CATEGORIES), "every category has scenarios"
    updates = {s.phrasing for s in SCENARIOS if s.category == "update"}
    assert None not in updates and len(updates) >= 25, "updates in at least 25 phrasings"
    harms = {f.harm for s in SCENARIOS for r in s.recalls for f in r.must_not}
    assert harms == set(HARM_KINDS), "every harm kind is measured"
    assert sum(not r.needs_memory for s in SCENARIOS for r in s.recalls) >= 10


def test_ids_are_unique_across_both_files() -> None:
    ids = [s.id for s in SCENARIOS]
    assert len(ids) == len(set(ids))


def test_a_third_of_each_category_is_held_out() -> None:
    for category in CATEGORIES:
        splits = Counter(s.split for s in SCENARIOS if s.category == category)
        total = splits["dev"] + splits["heldout"]
        assert total // 3 <= splits["heldout"] <= -(-total // 3), (category, dict(splits))


def test_every_held_out_file_opens_with_its_note() -> None:
    for path in split_files("heldout"):
        first = json.loads(path.read_text().splitlines()[0])
        assert set(first) == {"_note"} and "never tune" in first["_note"].lower(), path.name


def test_files_added_later_are_part_of_the_held_out_split(tmp_path: Path) -> None:
    """`heldout_new_<name>.jsonl` joins the held-out split (never the dev one); ids stay unique."""
    note = json.dumps({"_note": "never tune on these"})
    (tmp_path / "dev.jsonl").write_text(json.dumps(GOOD) + "\n")
    (tmp_path / "heldout.jsonl").write_text(note + "\n" + json.dumps(GOOD | {"id": "x-two"}) + "\n")
    (tmp_path / "heldout_new_more.jsonl").write_text(
        note + "\n" + json.dumps(GOOD | {"id": "x-three"}) + "\n"
    )
    assert [(s.id, s.split) for s in load(("dev", "heldout"), tmp_path)] == [
        ("x-one", "dev"), ("x-two", "heldout"), ("x-three", "heldout")
    ]  # fmt: skip
    assert [s.id for s in load(("dev",), tmp_path)] == ["x-one"]
    (tmp_path / "heldout_new_again.jsonl").write_text(json.dumps(GOOD | {"id": "x-two"}) + "\n")
    with pytest.raises(ScenarioError, match="also in"):
        load(("heldout",), tmp_path)


def test_every_recall_has_expectations() -> None:
    for scenario in SCENARIOS:
        for recall in scenario.recalls:
            if recall.needs_memory:
                assert recall.must or recall.must_not, (scenario.id, recall.query)
            else:
                assert not recall.must, (scenario.id, recall.query)


def test_every_expectation_is_about_something_said() -> None:
    """A pattern that matches no turn of its conversation could never fail (or never pass): each
    fact's patterns all match one turn of the scenario."""
    for scenario in SCENARIOS:
        texts = [turn["text"] for turn in scenario.turns()]
        for recall in scenario.recalls:
            for fact in (*recall.must, *recall.must_not):
                assert any(all(p.search(t) for p in fact.match) for t in texts), (scenario.id, fact.fact)


# --- the schema refuses what it cannot judge, in one line ----------------------------------------------

GOOD = {
    "id": "x-one", "category": "stable", "about": "a test scenario",
    "sessions": [
        {"session_id": "s1", "ts": "2026-01-01T10:00:00Z", "turns": [{"role": "user", "text": "I sing."}]}
    ],
    "recalls": [{"query": "do I sing?", "must": [{"fact": "sings", "match": ["sing"]}]}],
}  # fmt: skip


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"category": "gossip"}, "unknown category"),
        ({"recalls": [{"query": "q"}]}, "no expectation"),
        (
            {"recalls": [{"query": "q", "needs_memory": False, "must": [{"fact": "f", "match": ["a"]}]}]},
            "needs no memory",
        ),
        (
            {"recalls": [{"query": "q", "must_not": [{"fact": "f", "match": ["a"], "harm": "creepy"}]}]},
            "unknown harm",
        ),
        ({"recalls": [{"query": "q", "must": [{"fact": "f", "match": ["(unclosed"]}]}]}, "missing"),
        (
            {
                "sessions": [
                    {
                        "session_id": "s1",
                        "ts": "2026-01-01T10:00:00",
                        "turns": [{"role": "user", "text": "hi"}],
                    }
                ]
            },
            "time zone",
        ),
        (
            {
                "sessions": [
                    {
                        "session_id": "s1",
                        "ts": "2026-01-01T10:00:00Z",
                        "turns": [{"role": "bot", "text": "hi"}],
                    }
                ]
            },
            "role",
        ),
        ({"surprise": 1}, "unknown scenario field"),
        ({"recalls": [{"query": "q", "max_items": 0, "must": [{"fact": "f", "match": ["a"]}]}]}, "max_items"),
    ],
)
def test_a_bad_scenario_is_refused_in_one_line(tmp_path: Path, change: dict, message: str) -> None:
    path = tmp_path / "dev.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps(GOOD | {"id": "x-two"} | change) + "\n")
    with pytest.raises(ScenarioError, match=r"^dev\.jsonl:2 \(x-two\): ") as refused:
        load_file(path, "dev")
    assert message in str(refused.value) and "\n" not in str(refused.value)


def test_turns_are_sent_with_their_sessions_dates_and_users() -> None:
    raw = GOOD | {"sessions": [
        {"session_id": "s1", "ts": "2026-01-01T10:00:00Z",
         "turns": [{"role": "user", "text": "a"}, {"role": "assistant", "text": "b"}]},
        {"session_id": "p1", "ts": "2026-01-02T10:00:00Z", "user": "sister",
         "turns": [{"role": "user", "text": "c", "speaker": "Ana"}]},
    ]}  # fmt: skip
    turns = list(parse(raw, "dev").turns())
    assert [(t["turn_id"], t["user_id"], t["session_id"], t["ts"]) for t in turns] == [
        ("x-one:s1:0", "rs:x-one", "x-one:s1", "2026-01-01T10:00:00Z"),
        ("x-one:s1:1", "rs:x-one", "x-one:s1", "2026-01-01T10:00:45Z"),
        ("x-one:p1:0", "rs:x-one:sister", "x-one:p1", "2026-01-02T10:00:00Z"),
    ]
    assert turns[2]["metadata"] == {"speaker": "Ana"} and "metadata" not in turns[0]


# --- judging what the assistant sees ---------------------------------------------------------------------


def item(text: str, **fields) -> dict:
    return {"id": text, "text": text, "type": "fact", "confidence": 0.9, "citations": ["t1"], **fields}


@pytest.mark.parametrize(
    ("fields", "current"),
    [
        ({}, True),
        ({"type": "episode", "role": "user", "trust": "trusted"}, True),
        ({"type": "episode", "superseded": True, "note": "no longer current"}, False),
        ({"labels": ["possibly_superseded"]}, False),
        ({"label": "contested"}, False),
        ({"state": "superseded"}, False),
        ({"possibly_superseded": True}, False),
        ({"type": "episode", "role": "assistant", "trust": "caution"}, False),
        ({"trust": "caution"}, False),
        ({"confidence": 0.3}, False),
        ({"confidence": 0.31}, True),
    ],
)
def test_presented_as_current_reads_the_items_own_labels(fields: dict, current: bool) -> None:
    assert presented_as_current(item("User lives in Quito.", **fields)) is current


def test_a_quote_of_a_returned_beliefs_turn_and_a_repeated_text_are_duplicates() -> None:
    belief = item("User lives in Quito.", citations=["t1"])
    quote = item("I live in Quito now.", type="episode", citations=["t1", "t0"])  # 20 characters: 5 tokens
    other = item("I like maps.", type="episode", citations=["t2"])
    again = item("user lives in quito", citations=["t3"])  # 19 characters: 5 tokens
    assert duplicate_tokens([belief, other]) == 0
    assert duplicate_tokens([quote, belief, other]) == 5
    assert duplicate_tokens([belief, again]) == 5


def scenario_with(must: list, must_not: list, needs_memory: bool = True):
    recall = {"query": "where do I live?", "needs_memory": needs_memory}
    if must:
        recall["must"] = must
    if must_not:
        recall["must_not"] = must_not
    return parse(GOOD | {"recalls": [recall]}, "dev")


def test_judge_counts_only_items_presented_as_current() -> None:
    scenario = scenario_with(
        [{"fact": "Quito", "match": ["quito"]}],
        [{"fact": "Lima", "match": ["lima"], "unless": ["quito"], "harm": "superseded"}],
    )
    recall = scenario.recalls[0]
    labelled = {"memories": [item("User lives in Lima.", superseded=True), item("User lives in Quito.")]}
    verdict = judge(scenario, recall, labelled)
    assert verdict.passed and verdict.found == (True,) and not verdict.harms

    both = judge(scenario, recall, {"memories": [item("User moved from Lima to Quito.")]})
    assert both.passed, "an item stating the new value beside the old is not the old fact"

    stale = judge(
        scenario, recall, {"memories": [item("User lives in Lima."), item("Quito?", confidence=0.2)]}
    )
    assert (
        stale.missing == ("Quito",) and [h.kind for h in stale.harms] == ["superseded"] and not stale.passed
    )


def test_a_question_that_needs_no_memory_fails_on_any_item_and_is_counted() -> None:
    scenario = scenario_with([], [], needs_memory=False)
    empty = judge(scenario, scenario.recalls[0], {"memories": [], "tokens_used": 0})
    chatty = judge(scenario, scenario.recalls[0], {"memories": [item("User sings.")] * 2, "tokens_used": 6})
    assert empty.passed and not chatty.passed
    figures = tally([empty, chatty])["dev"]["all"].figures()
    assert figures["no_memory_mean_items"] == 1.0 and figures["harmful_recall_rate"] == 0.0
    assert figures["duplicate_tokens"] == 3 and figures["mean_tokens"] == 3.0


def test_a_recall_with_max_items_fails_on_more_items_even_when_the_fact_is_found() -> None:
    scenario = parse(
        GOOD | {"recalls": [{"query": "do I sing?", "max_items": 1, "must": [{"fact": "sings", "match": ["sing"]}]}]},
        "dev",
    )
    recall = scenario.recalls[0]
    one = judge(scenario, recall, {"memories": [item("User sings.", evidence=[{"text": "I sing in a choir."}])]})
    two = judge(scenario, recall, {"memories": [item("User sings."), item("I sing in a choir.", type="episode")]})
    assert one.passed and not one.too_many
    assert two.found == (True,) and two.too_many and not two.passed


def test_the_json_report_keeps_held_out_verdicts_in_aggregate() -> None:
    verdicts = [
        Verdict(s, "stable", split, "q", True, (False,), ("f",), (), 1, 5, 0)
        for s, split in (("a", "dev"), ("b", "heldout"))
    ]
    report = as_json(tally(verdicts), verdicts)
    assert [v["scenario"] for v in report["dev_verdicts"]] == ["a"]
    assert report["figures"]["heldout"]["all"]["recalls"] == 1


# --- end to end -------------------------------------------------------------------------------------------

#: A few dev scenarios of different kinds (an update, safety in and out of domain, one that needs no memory).
END_TO_END = ("update-car-got-rid-of", "safety-tree-nuts", "no-memory-grammar", "scope-wifes-employer")


@pytest.mark.integration
def test_dev_scenarios_run_end_to_end_through_a_real_stack(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    chosen = [s for s in SCENARIOS if s.id in END_TO_END]
    assert {s.split for s in chosen} == {"dev"} and len(chosen) == len(END_TO_END)
    out = tmp_path / "figures.json"

    assert (
        main(["--split", "dev", "--only", ",".join(END_TO_END), "--json", str(out), "--show-failures"]) == 0
    )

    printed = capsys.readouterr()
    report = json.loads(out.read_text())
    verdicts = report["dev_verdicts"]
    assert sorted({v["scenario"] for v in verdicts}) == sorted(END_TO_END)
    assert len(verdicts) == sum(len(s.recalls) for s in chosen)
    assert re.search(r"pipeline: \d+ jobs in \d+ s: \{", printed.err), "every job finished"
    assert "'failed'" not in printed.err
    figures = report["figures"]["dev"]
    assert set(figures) == {s.category for s in chosen} | {"all"}
    assert figures["all"]["tokens"] > 0, "the stack answered with memories"
    for verdict in verdicts:
        if not verdict["passed"]:
            assert f"FAIL {verdict['scenario']} " in printed.out, "each failing dev recall is shown"
    assert "dev: 4 scenarios" in printed.out
