"""Reconcile is pure: every rule is a row of a table here."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from beliefs.confidence import CONFIDENCE_FLOOR
from beliefs.reconcile import (
    Decision,
    confirmed,
    decide,
    normalize_text,
    normalize_value,
    superseded,
    text_fingerprint,
)
from beliefs.records import Memory, MemoryState, Trust

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

SLOT = {"entity": "user", "attribute": "preferred_meeting_time"}


def mem(id: str, minute: int = 0, **fields) -> Memory:
    """A memory of tenant t / user u; `minute` orders creation."""
    at = T0 + timedelta(minutes=minute)
    base = {
        "id": id,
        "tenant_id": "t",
        "user_id": "u",
        "text": f"memory {id}",
        "type": "preference",
        "topic": "work",
        "importance": 0.5,
        "confidence": 0.9,
        "source_turn_ids": [f"turn-{id}"],
        "created_at": at,
        "valid_from": at,
    }
    return Memory(**(base | fields))


def meeting(id: str, value: str, minute: int = 0, **fields) -> Memory:
    return mem(id, minute, **({"text": f"User prefers {value} meetings"} | SLOT | {"value": value} | fields))


def allergy(id: str, value: str, minute: int = 0, **fields) -> Memory:
    return mem(
        id,
        minute,
        text=f"User is allergic to {value}",
        entity="user",
        attribute="allergy",
        value=value,
        **fields,
    )


CASES = [
    # (name, new, candidates, action, target ids)
    ("nothing to reconcile", meeting("n", "morning", 9), [], "insert", ()),
    ("same value", meeting("n", "morning", 9), [meeting("a", "morning")], "confirm", ("a",)),
    (
        "same value, case and punctuation",
        meeting("n", " Morning. ", 9),
        [meeting("a", "morning")],
        "confirm",
        ("a",),
    ),
    (
        "same text, no slot",
        mem("n", 9, text="Likes jazz."),
        [mem("a", text="likes  JAZZ")],
        "confirm",
        ("a",),
    ),
    ("same text, other slot", meeting("n", "evening", 9, text="x"), [mem("a", text="X!")], "confirm", ("a",)),
    ("different text, no slot", mem("n", 9, text="Likes jazz"), [mem("a", text="Likes rock")], "insert", ()),
    ("single-valued new value", meeting("n", "afternoon", 9), [meeting("a", "morning")], "supersede", ("a",)),
    (
        "single-valued: every active one in the slot",
        meeting("n", "afternoon", 9),
        [meeting("b", "evening", 2), meeting("a", "morning", 1)],
        "supersede",
        ("a", "b"),
    ),
    (
        "single-valued: a slot row without value is replaced too",
        meeting("n", "afternoon", 9),
        [mem("a", entity="user", attribute="preferred_meeting_time")],
        "supersede",
        ("a",),
    ),
    (
        "correction is a confident claim",
        meeting("n", "afternoon", 9, importance=1.0),
        [meeting("a", "morning")],
        "supersede",
        ("a",),
    ),
    ("multi-valued accumulates", allergy("n", "shellfish", 9), [allergy("a", "peanuts")], "insert", ()),
    ("multi-valued same value", allergy("n", "Peanuts", 9), [allergy("a", "peanuts")], "confirm", ("a",)),
    (
        "unknown attribute is single-valued",
        mem("n", 9, entity="user", attribute="favourite_colour", value="red"),
        [mem("a", entity="user", attribute="favourite_colour", value="blue")],
        "supersede",
        ("a",),
    ),
    (
        "unknown attribute known to be a set accumulates",
        mem("n", 9, entity="user", attribute="skills", value="welding"),
        [mem("a", entity="user", attribute="skills", value="sailing")],
        "insert",
        (),
    ),
    (
        "low confidence never overturns",
        meeting("n", "afternoon", 9, confidence=0.3),
        [meeting("a", "morning")],
        "insert_alongside",
        ("a",),
    ),
    (
        "confidence at the floor is confident",
        meeting("n", "afternoon", 9, confidence=CONFIDENCE_FLOOR),
        [meeting("a", "morning")],
        "supersede",
        ("a",),
    ),
    (
        "untrusted never overturns",
        meeting("n", "afternoon", 9, trust=Trust.UNTRUSTED),
        [meeting("a", "morning")],
        "insert_alongside",
        ("a",),
    ),
    (
        "caution never overturns",
        meeting("n", "afternoon", 9, trust=Trust.CAUTION),
        [meeting("a", "morning")],
        "insert_alongside",
        ("a",),
    ),
    ("weak, nothing to overturn", mem("n", 9, confidence=0.2), [], "insert_alongside", ()),
    (
        "weak multi-valued",
        allergy("n", "shellfish", 9, confidence=0.2),
        [allergy("a", "peanuts")],
        "insert_alongside",
        (),
    ),
    (
        "weak same value still confirms",
        meeting("n", "morning", 9, confidence=0.2),
        [meeting("a", "morning")],
        "confirm",
        ("a",),
    ),
    (
        "context scopes values",
        meeting("n", "morning", 9, context="consulting"),
        [meeting("a", "afternoon")],
        "insert",
        (),
    ),
    (
        "null context only matches null",
        meeting("n", "morning", 9),
        [meeting("a", "afternoon", context="consulting")],
        "insert",
        (),
    ),
    (
        "same context supersedes",
        meeting("n", "afternoon", 9, context="consulting"),
        [meeting("a", "morning", context="consulting"), meeting("b", "morning")],
        "supersede",
        ("a",),
    ),
    ("other entity", meeting("n", "afternoon", 9, entity="alice"), [meeting("a", "morning")], "insert", ()),
    ("claim without a value never supersedes", mem("n", 9, **SLOT), [meeting("a", "morning")], "insert", ()),
    (
        "superseded candidates are ignored",
        meeting("n", "afternoon", 9),
        [meeting("a", "morning", state=MemoryState.SUPERSEDED)],
        "insert",
        (),
    ),
    (
        "closed candidates are ignored",
        meeting("n", "afternoon", 9),
        [meeting("a", "morning", valid_until=T0)],
        "insert",
        (),
    ),
    (
        "revoked candidates are ignored",
        meeting("n", "morning", 9),
        [meeting("a", "morning", revoked_at=T0)],
        "insert",
        (),
    ),
    (
        "another user's memory is ignored",
        meeting("n", "afternoon", 9),
        [meeting("a", "morning", user_id="v")],
        "insert",
        (),
    ),
    (
        "another tenant's memory is ignored",
        meeting("n", "morning", 9),
        [meeting("a", "morning", tenant_id="s")],
        "insert",
        (),
    ),
    ("the memory itself is ignored", meeting("n", "morning", 9), [meeting("n", "morning", 9)], "insert", ()),
    (
        "a memory that is not current changes nothing",
        meeting("n", "afternoon", 9, state=MemoryState.SUPERSEDED, valid_until=T0),
        [meeting("a", "morning"), meeting("b", "afternoon")],
        "insert",
        (),
    ),
    (
        "confirms the strongest duplicate",
        meeting("n", "morning", 9),
        [
            meeting("a", "morning", 1, confidence=0.3),
            meeting("b", "morning", 2),
            meeting("c", "morning", 3, trust=Trust.CAUTION),
        ],
        "confirm",
        ("b",),
    ),
    (
        "equally strong duplicates: the oldest",
        meeting("n", "morning", 9),
        [meeting("b", "morning", 2), meeting("a", "morning", 1)],
        "confirm",
        ("a",),
    ),
]


@pytest.mark.parametrize(("name", "new", "candidates", "action", "targets"), CASES, ids=[c[0] for c in CASES])
def test_decide(
    name: str, new: Memory, candidates: list[Memory], action: str, targets: tuple[str, ...]
) -> None:
    decision = decide(new, candidates)
    assert (decision.action, decision.target_ids) == (action, targets)
    assert decision.reason


def test_decision_is_a_frozen_value() -> None:
    decision = Decision("insert")
    with pytest.raises(AttributeError):
        decision.action = "confirm"  # type: ignore[misc]
    assert decision == Decision("insert", (), "")


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        ("Morning", "morning"),
        ("  morning  ", "morning"),
        ("morning.", "morning"),
        ("morning!?", "morning"),
        ("morning …", "morning"),
        ("early   morning", "early morning"),
        ("STRASSE", "strasse"),
        ("Straße", "strasse"),
        ("9.30", "9.30"),
        ("", ""),
        ("...", ""),
    ],
)
def test_normalize_value(raw: str, normalized: str) -> None:
    assert normalize_value(raw) == normalized


def test_normalize_text_and_fingerprint_ignore_case_spacing_and_final_punctuation() -> None:
    assert normalize_text("User  likes\tJazz.") == "user likes jazz"
    assert text_fingerprint("User likes jazz") == text_fingerprint(" user LIKES jazz! ")
    assert text_fingerprint("User likes jazz") != text_fingerprint("User likes rock")
    assert len(text_fingerprint("x")) == 64


def test_confirmed_merges_citations_and_keeps_the_stronger_scores() -> None:
    existing = meeting("a", "morning", importance=0.8, confidence=0.6, evidence="mornings please")
    existing = existing.model_copy(update={"source_turn_ids": ["t1", "t2"]})
    new = meeting("n", "Morning", 30, importance=0.4, confidence=0.95, evidence="other words")
    new = new.model_copy(update={"source_turn_ids": ["t2", "t3"]})

    result = confirmed(existing, new)

    assert result.id == "a"
    assert result.source_turn_ids == ["t1", "t2", "t3"]
    assert (result.importance, result.confidence) == (0.8, 0.95)
    assert result.last_confirmed == new.valid_from
    assert result.evidence == "mornings please"
    assert (result.value, result.text, result.valid_from) == (
        existing.value,
        existing.text,
        existing.valid_from,
    )


def test_confirmed_by_a_weak_claim_adds_the_citation_but_not_currency() -> None:
    existing = meeting("a", "morning", last_confirmed=T0)
    result = confirmed(existing, meeting("n", "morning", 30, confidence=0.2))
    assert result.last_confirmed == T0
    assert result.source_turn_ids == ["turn-a", "turn-n"]
    assert result.confidence == existing.confidence


def test_confirmed_never_moves_last_confirmed_back() -> None:
    existing = meeting("a", "morning", last_confirmed=T0 + timedelta(days=2))
    assert confirmed(existing, meeting("n", "morning", 30)).last_confirmed == T0 + timedelta(days=2)


@pytest.mark.parametrize(
    ("old", "new", "result"),
    [
        (Trust.UNTRUSTED, Trust.TRUSTED, Trust.TRUSTED),
        (Trust.CAUTION, Trust.UNTRUSTED, Trust.CAUTION),
        (Trust.TRUSTED, Trust.UNTRUSTED, Trust.TRUSTED),
    ],
)
def test_confirmed_trust_only_rises(old: Trust, new: Trust, result: Trust) -> None:
    assert (
        confirmed(meeting("a", "morning", trust=old), meeting("n", "morning", 5, trust=new)).trust is result
    )


def test_superseded_closes_and_links() -> None:
    old = meeting("a", "morning")
    new = meeting("n", "afternoon", 30)
    result = superseded(old, new)
    assert result.valid_until == new.valid_from
    assert result.superseded_by == "n"
    assert result.state is MemoryState.SUPERSEDED
    assert not result.is_current
    assert (result.value, result.valid_from, result.confidence) == ("morning", old.valid_from, old.confidence)


def test_superseded_ends_when_the_replacement_starts_even_if_dated_earlier() -> None:
    old = meeting("a", "morning", 60)
    assert superseded(old, meeting("n", "afternoon", 0)).valid_until == T0
