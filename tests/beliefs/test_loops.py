"""Contradiction-loop decisions: the window, the threshold, contention across contexts, resolutions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from beliefs import loops
from beliefs.confidence import RESOLUTION_CONFIDENCE
from beliefs.loops import (
    contends,
    contested_id,
    counted_supersessions,
    input_required,
    is_contradiction_loop,
    resolution_choices,
    resolution_text,
    value_history,
)
from beliefs.records import Memory, MemoryState, Trust

NOW = datetime(2026, 3, 31, 12, 0, tzinfo=UTC)


def days_ago(*days: float) -> list[datetime]:
    return [NOW - timedelta(days=d) for d in days]


def mem(i: str, value: str | None, context: str | None = None, **fields) -> Memory:
    base = dict(
        id=i, tenant_id="t", user_id="u", text=f"prefers {value}", type="preference", topic="work",
        importance=0.5, confidence=0.9, entity="user", attribute="preferred_meeting_time", value=value,
        context=context, created_at=NOW, valid_from=NOW, source_turn_ids=[f"turn-{i}"],
    )
    return Memory(**(base | fields))


@pytest.mark.parametrize(
    ("ages", "expected"),
    [
        ((), False),
        ((1,), False),
        ((1, 2), False),
        ((1, 2, 3), True),
        ((0, 0, 0), True),  # at `now` itself counts
        ((1, 2, 29.9), True),
        ((1, 2, 30), False),  # exactly 30 days ago is outside (now - 30d, now]
        ((1, 2, 31), False),
        ((1, 2, 3, 40, 50), True),
        ((40, 50, 60), False),
        ((-1, 1, 2), False),  # a supersession after `now` is not counted
    ],
)
def test_is_contradiction_loop_counts_supersessions_in_the_window(ages, expected):
    assert is_contradiction_loop(days_ago(*ages), NOW) is expected


def test_threshold_and_window_are_configurable():
    times = days_ago(1, 5, 10)
    assert is_contradiction_loop(times, NOW, threshold=2)
    assert not is_contradiction_loop(times, NOW, threshold=4)
    assert not is_contradiction_loop(times, NOW, window_days=7)
    assert is_contradiction_loop(times, NOW, window_days=10.5)
    assert is_contradiction_loop(days_ago(1), NOW, threshold=1)


@pytest.mark.parametrize(("threshold", "window"), [(0, 30), (-1, 30), (3, 0), (3, -5)])
def test_nonsense_settings_are_rejected(threshold, window):
    with pytest.raises(ValueError):
        is_contradiction_loop(days_ago(1), NOW, threshold=threshold, window_days=window)


def test_counted_supersessions_restart_after_a_resolution():
    times = days_ago(10, 5, 1)
    assert counted_supersessions(times, None) == times
    assert counted_supersessions(times, NOW - timedelta(days=5)) == days_ago(1)  # strictly after
    assert counted_supersessions(times, NOW) == []


def test_contends_same_context_or_default_with_a_different_value():
    default_morning = mem("a", "morning")
    consulting_morning = mem("b", "morning", "consulting")
    main_evening = mem("c", "evening", "main")
    active = [default_morning, consulting_morning, main_evening]

    assert [m.id for m in contends(mem("n", "afternoon"), active)] == ["a", "b", "c"]  # the default vs all
    assert [m.id for m in contends(mem("n", "afternoon", "main"), active)] == ["a", "c"]  # not consulting
    assert [m.id for m in contends(mem("n", "morning", "main"), active)] == ["c"]  # same value: no dispute
    assert contends(mem("n", "Morning."), [default_morning]) == []  # normalized


def test_contends_ignores_weak_unstructured_multi_valued_and_foreign_claims():
    active = [mem("a", "morning")]
    assert contends(mem("n", "afternoon", confidence=0.2), active) == []
    assert contends(mem("n", "afternoon", trust=Trust.CAUTION), active) == []
    assert contends(mem("n", None), active) == []
    assert contends(mem("n", "cats", attribute="likes"), [mem("a", "dogs", attribute="likes")]) == []
    assert contends(mem("n", "afternoon"), [mem("a", "morning", user_id="other")]) == []
    assert contends(mem("n", "afternoon"), [mem("a", "morning", state=MemoryState.CONTESTED)]) == []
    assert contends(mem("n", "afternoon"), [mem("n", "morning")]) == []  # itself


def test_contested_id_is_deterministic_per_pair():
    pair = ("t", "u", "user", "preferred_meeting_time")
    assert contested_id(pair) == contested_id(pair)
    assert contested_id(pair) != contested_id(("t", "u2", "user", "preferred_meeting_time"))
    assert contested_id(pair) != contested_id(("t2", "u", "user", "preferred_meeting_time"))


def test_value_history_is_ordered_and_free_of_repeats():
    first = mem("a", "morning", valid_from=NOW - timedelta(days=3))
    second = mem("b", "afternoon", valid_from=NOW - timedelta(days=2))
    third = mem("c", "morning", "consulting", valid_from=NOW - timedelta(days=1))
    history = value_history([], [third, first])
    history = value_history(history, [second, first, third])
    assert [(e["value"], e["context"], e["memory_id"]) for e in history] == [
        ("morning", None, "a"), ("afternoon", None, "b"), ("morning", "consulting", "c")
    ]
    assert history[0]["at"] == first.valid_from.isoformat()


def test_input_required_names_the_pair_and_its_history():
    history = value_history([], [mem("a", "morning")])
    event = input_required("slot", ("t", "u", "user", "preferred_meeting_time"), history)
    assert event == {
        "kind": "input_required", "contested_id": "slot", "tenant_id": "t", "user_id": "u", "agent_id": None,
        "entity": "user", "attribute": "preferred_meeting_time", "value_history": history,
    }


@pytest.mark.parametrize(
    ("value", "by_context", "default", "expected"),
    [
        ("afternoon", None, None, [(None, "afternoon")]),
        (None, {"consulting": "morning"}, "afternoon", [(None, "afternoon"), ("consulting", "morning")]),
        (None, {"Consulting ": "morning"}, None, [("consulting", "morning")]),
        (None, {"a": "x", "b": "y"}, None, [("a", "x"), ("b", "y")]),
    ],
)
def test_resolution_choices(value, by_context, default, expected):
    assert resolution_choices(value, by_context, default) == expected


@pytest.mark.parametrize(
    ("value", "by_context", "default"),
    [
        (None, None, None),
        ("a", {"x": "y"}, None),
        ("a", None, "b"),
        (None, {}, "b"),
        (" ", None, None),
        (None, {"x": " "}, None),
        (None, {" ": "y"}, None),
        (None, {"x": "y"}, " "),
    ],
)
def test_resolution_choices_reject_ambiguous_or_blank_input(value, by_context, default):
    with pytest.raises(ValueError):
        resolution_choices(value, by_context, default)


def test_resolution_text_reuses_the_attributes_phrasing():
    assert resolution_text("preferred_meeting_time", "morning", "consulting") == (
        "User prefers morning meetings for consulting."
    )
    assert resolution_text("preferred_meeting_time", "afternoon", None) == "User prefers afternoon meetings (default)."
    assert resolution_text("preferred_editor", "vim", None) == "User's preferred editor is vim (default)."


def test_resolution_outranks_extraction():
    assert loops.RESOLUTION_IMPORTANCE > 0.9 and RESOLUTION_CONFIDENCE > 0.9
