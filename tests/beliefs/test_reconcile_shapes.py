"""Reconcile for every claim shape: polarity, retraction, invented attributes, decisions, volatile, repetition."""

from __future__ import annotations

from datetime import timedelta

import pytest

from beliefs.reconcile import REPEAT_STEP, REPEATED_IMPORTANCE, confirmed, decide, repeated_importance
from beliefs.records import Polarity
from tests.beliefs.test_reconcile import T0, mem

NEG = Polarity.NEGATIVE


def fact(id: str, attribute: str, value: str, minute: int = 0, entity: str = "user", **fields):
    return mem(id, minute, entity=entity, attribute=attribute, value=value, text=f"{attribute} {value} {id}", **fields)


CASES = [
    # (name, new, candidates, action, targets)
    (
        "retraction closes the belief",
        fact("n", "lives_in", "Berlin", 9, polarity=NEG),
        [fact("a", "lives_in", "Berlin")],
        "supersede",
        ("a",),
    ),
    (
        "retraction of one value leaves another value alone",
        fact("n", "lives_in", "Berlin", 9, polarity=NEG),
        [fact("a", "lives_in", "Paris")],
        "insert",
        (),
    ),
    (
        "retraction with nothing to close is stored",
        fact("n", "lives_in", "Berlin", 9, polarity=NEG),
        [],
        "insert",
        (),
    ),
    (
        "opposite polarity on a set value supersedes",
        fact("n", "likes", "jazz", 9, polarity=NEG),
        [fact("a", "likes", "jazz"), fact("b", "likes", "techno")],
        "supersede",
        ("a",),
    ),
    (
        "re-affirmation closes the retraction",
        fact("n", "likes", "jazz", 9),
        [fact("a", "likes", "jazz", polarity=NEG)],
        "supersede",
        ("a",),
    ),
    (
        "the same retraction again confirms it",
        fact("n", "uses_tool", "Vim", 9, polarity=NEG),
        [fact("a", "uses_tool", "vim", polarity=NEG)],
        "confirm",
        ("a",),
    ),
    (
        "a new positive value keeps an earlier retraction of another",
        fact("n", "lives_in", "Paris", 9),
        [fact("a", "lives_in", "Berlin", polarity=NEG)],
        "insert",
        (),
    ),
    (
        "a weak retraction never closes a belief",
        fact("n", "lives_in", "Berlin", 9, polarity=NEG, confidence=0.3),
        [fact("a", "lives_in", "Berlin")],
        "insert_alongside",
        ("a",),
    ),
    (
        "invented attribute is single-valued",
        fact("n", "preferred_database", "MySQL", 9),
        [fact("a", "preferred_database", "PostgreSQL")],
        "supersede",
        ("a",),
    ),
    (
        "invented attribute differs by context",
        fact("n", "deploy_day", "Friday", 9, context="side project"),
        [fact("a", "deploy_day", "Monday")],
        "insert",
        (),
    ),
    (
        "known set accumulates",
        fact("n", "speaks_language", "French", 9),
        [fact("a", "speaks_language", "German")],
        "insert",
        (),
    ),
    (
        "a later decision on the same matter supersedes",
        fact("n", "decision", "Go", 9, entity="parser", type="decision"),
        [fact("a", "decision", "Rust", entity="parser", type="decision")],
        "supersede",
        ("a",),
    ),
    (
        "decisions on different matters coexist",
        fact("n", "decision", "Go", 9, entity="cli", type="decision"),
        [fact("a", "decision", "Rust", entity="parser", type="decision")],
        "insert",
        (),
    ),
    (
        "volatile never supersedes a standing belief",
        fact("n", "preferred_theme", "light", 9, expires_at=T0 + timedelta(days=1)),
        [fact("a", "preferred_theme", "dark")],
        "insert_alongside",
        ("a",),
    ),
    (
        "volatile replaces an older volatile value",
        fact("n", "located_in", "Osaka", 9, expires_at=T0 + timedelta(days=3)),
        [fact("a", "located_in", "Tokyo", expires_at=T0 + timedelta(days=2)), fact("b", "located_in", "Paris")],
        "supersede",
        ("a",),
    ),
    (
        "standing value supersedes a volatile one",
        fact("n", "preferred_theme", "dark", 9),
        [fact("a", "preferred_theme", "light", expires_at=T0 + timedelta(days=1))],
        "supersede",
        ("a",),
    ),
]


@pytest.mark.parametrize(("name", "new", "candidates", "action", "targets"), CASES, ids=[c[0] for c in CASES])
def test_decide_for_every_claim_shape(name, new, candidates, action, targets) -> None:
    decision = decide(new, candidates)
    assert (decision.action, tuple(sorted(decision.target_ids))) == (action, targets), decision.reason


def test_confirmation_across_sessions_raises_importance_to_the_repeated_band() -> None:
    first = fact("a", "allergy", "peanuts", importance=0.6, source_session="s1")
    again = fact("n", "allergy", "peanuts", 9, importance=0.5, source_session="s2")
    assert confirmed(first, again).importance == REPEATED_IMPORTANCE
    third = fact("m", "allergy", "peanuts", 19, importance=0.5, source_session="s3")
    assert confirmed(confirmed(first, again), third).importance == pytest.approx(REPEATED_IMPORTANCE + REPEAT_STEP)


def test_confirmation_in_the_same_session_or_by_a_weak_claim_does_not_raise_importance() -> None:
    first = fact("a", "allergy", "peanuts", importance=0.6, source_session="s1")
    assert repeated_importance(first, fact("n", "allergy", "peanuts", 9, importance=0.5, source_session="s1")) == 0.6
    weak = fact("n", "allergy", "peanuts", 9, importance=0.5, source_session="s2", confidence=0.2)
    assert repeated_importance(first, weak) == 0.6
    assert repeated_importance(first, fact("n", "allergy", "peanuts", 9, importance=0.5)) == 0.6


def test_repeated_importance_never_passes_one() -> None:
    first = fact("a", "allergy", "peanuts", importance=0.99, source_session="s1")
    assert repeated_importance(first, fact("n", "allergy", "peanuts", 9, source_session="s2")) == 1.0


def test_the_event_of_a_retraction_says_so() -> None:
    from beliefs.records import EventKind, MemoryEvent

    event = MemoryEvent.about(EventKind.CREATED, fact("n", "lives_in", "Berlin", polarity=NEG))
    assert (event.attribute, event.value, event.polarity) == ("lives_in", "Berlin", NEG)
    assert MemoryEvent.model_validate_json(event.model_dump_json()) == event
