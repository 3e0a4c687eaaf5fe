"""Claim normalisation is pure: one spelling per attribute and value, polarity in the claim, decisions by matter."""

from __future__ import annotations

import pytest

from beliefs.records import Claim, MemoryType, Polarity
from reading.canonical_claim import canonical_attribute, canonical_value, decision_matter, normalize_claim

POS, NEG = Polarity.POSITIVE, Polarity.NEGATIVE


def claim(attribute: str | None, value: str | None, entity: str | None = "user", **fields) -> Claim:
    base = {"text": "User said so.", "type": MemoryType.FACT, "importance": 0.6, "confidence": 0.9}
    return Claim(**(base | {"entity": entity, "attribute": attribute, "value": value} | fields))


@pytest.mark.parametrize(
    ("raw", "canonical", "polarity"),
    [
        ("preferred_database", "preferred_database", POS),
        ("database", "preferred_database", POS),
        ("db_choice", "preferred_database", POS),
        ("Preferred-DB", "preferred_database", POS),
        ("Database Choice", "preferred_database", POS),
        ("favorite_editor", "preferred_editor", POS),
        ("favourite_colour", "preferred_colour", POS),
        ("FavoriteColor", "preferred_color", POS),
        ("preferredDatabase", "preferred_database", POS),
        ("user_location", "lives_in", POS),
        ("employer", "works_at", POS),
        ("job title", "role", POS),
        ("time-zone", "timezone", POS),
        ("dislikes", "likes", NEG),
        ("hates", "likes", NEG),
        ("does_not_use", "uses_tool", NEG),
        ("no_longer_lives_in", "lives_in", NEG),
        ("stopped_using", "uses_tool", NEG),
        ("not_likes", "likes", NEG),
        ("allergies", "allergy", POS),
        ("kids", "has_child", POS),
        ("lives_in", "lives_in", POS),
        ("some_new_thing", "some_new_thing", POS),
    ],
)
def test_attributes_take_one_canonical_name(raw: str, canonical: str, polarity: Polarity) -> None:
    assert canonical_attribute(raw) == (canonical, polarity)


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        ("postgres", "PostgreSQL"),
        ("Postgres.", "PostgreSQL"),
        ("  the   PostgreSQL  ", "PostgreSQL"),
        ("a dog", "dog"),
        ("An apple!", "apple"),
        ("Berlin", "Berlin"),
        ("5 kilometers", "5 km"),
        ("5km", "5 km"),
        ("12 miles", "12 mi"),
        ("3,5 kilos", "3.5 kg"),
        ("32 years old", "32 years"),
        ('"vim"', "vim"),  # case is kept: values compare casefolded
        ("golang", "Go"),
    ],
)
def test_values_take_one_canonical_spelling(raw: str, canonical: str) -> None:
    assert canonical_value(raw) == canonical


@pytest.mark.parametrize(
    ("attribute", "value", "expected"),
    [
        ("dislikes", "jazz", ("likes", "jazz", NEG)),
        ("likes", "not jazz", ("likes", "jazz", NEG)),
        ("dislikes", "not jazz", ("likes", "jazz", POS)),  # two negations cancel
        ("does_not_use", "vim", ("uses_tool", "vim", NEG)),
        ("lives_in", "no longer Berlin", ("lives_in", "Berlin", NEG)),
        ("db", "postgres", ("preferred_database", "PostgreSQL", POS)),
    ],
)
def test_polarity_is_folded_into_the_claim(attribute: str, value: str, expected: tuple) -> None:
    normal = normalize_claim(claim(attribute, value))
    assert (normal.attribute, normal.value, normal.polarity) == expected


def test_a_negative_claim_stays_negative_and_a_negated_attribute_flips_it_back() -> None:
    assert normalize_claim(claim("lives_in", "Berlin", polarity=NEG)).polarity is NEG
    assert normalize_claim(claim("dislikes", "jazz", polarity=NEG)).polarity is POS


@pytest.mark.parametrize(
    ("entity", "value", "matter", "choice"),
    [
        ("user", "Rust for the parser", "parser", "Rust"),
        ("user", "to use Rust for the parser", "parser", "Rust"),
        (None, "SQLite as our cache", "cache", "SQLite"),
        ("user", "MySQL", "database", "MySQL"),
        ("user", "mysql", "database", "mysql"),
        ("user", "postgres", "database", "PostgreSQL"),
        ("we", "switch to TypeScript", "programming language", "TypeScript"),
        ("user", "a monorepo", "monorepo", "monorepo"),  # no matter known: the choice is its own
        ("parser", "Rust", "parser", "Rust"),  # an entity that names the matter is kept
    ],
)
def test_decisions_are_keyed_by_matter(entity: str | None, value: str, matter: str, choice: str) -> None:
    normal = normalize_claim(claim("decided", value, entity=entity, type=MemoryType.DECISION))
    assert (normal.entity, normal.attribute, normal.value) == (matter, "decision", choice)


def test_a_named_speaker_is_the_subject_of_a_decision_too() -> None:
    normal = normalize_claim(claim("decision", "Go for the CLI", entity="Dana"), frozenset({"Dana"}))
    assert (normal.entity, normal.value) == ("cli", "Go")


def test_decision_matter_of_unrelated_choices_differs() -> None:
    assert decision_matter("user", "Kafka")[0] != decision_matter("user", "React")[0]


def test_two_extractors_spelling_one_claim_differently_normalise_to_the_same_slot() -> None:
    rules = normalize_claim(claim("preferred_database", "PostgreSQL"))
    llm = normalize_claim(claim("Database-Choice", "the postgres"))
    assert (rules.entity, rules.attribute, rules.value, rules.polarity) == (
        llm.entity,
        llm.attribute,
        llm.value,
        llm.polarity,
    )


def test_context_is_folded_and_a_claim_without_attribute_is_untouched() -> None:
    assert normalize_claim(claim("preferred_meeting_time", "mornings", context=" Consulting ")).context == "consulting"
    bare = claim(None, None, entity=None)
    assert normalize_claim(bare) is bare
