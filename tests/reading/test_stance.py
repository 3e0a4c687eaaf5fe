"""A trait and the stance it leads to, in one sentence: the fact and the preference, both kept."""

from __future__ import annotations

import pytest

from beliefs.records import MemoryType
from tests.reading.rules_extraction import claims


def test_a_trait_and_its_stance_are_a_fact_and_a_preference_of_one_sentence() -> None:
    text = "I'm allergic to latex and avoid any gloves that contain it."
    found = claims(text)
    fact = [claim for claim in found if claim.type is MemoryType.FACT]
    stance = [claim for claim in found if claim.type is MemoryType.PREFERENCE]
    assert [(claim.attribute, claim.value) for claim in fact] == [("allergy", "latex")]
    assert len(stance) == 1
    # the whole sentence, so "it" still points at latex; the elided subject's verb agrees
    assert stance[0].text == "User is allergic to latex and avoids any gloves that contain it."
    assert {claim.evidence for claim in found} == {text}


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("I follow a strict paleo diet, avoiding all grains.", "User avoids all grains."),
        ("I have two toddlers, so I only book hotels with a family room.", "so they only book hotels"),
        ("I avoid strawberries because I'm allergic to them.", "because they are allergic to them"),
    ],
)
def test_the_stance_keeps_its_reason_unless_a_safety_fact_holds_it(text: str, kept: str) -> None:
    stance = [claim for claim in claims(text) if claim.type is MemoryType.PREFERENCE]
    assert len(stance) == 1 and kept in stance[0].text


def test_a_pronoun_is_not_an_allergen() -> None:
    assert all(
        claim.attribute != "allergy" for claim in claims("I avoid strawberries because I'm allergic to them.")
    )


def test_a_diet_said_as_an_avoidance_keeps_the_fact_and_the_avoidance() -> None:
    found = claims("I never eat pork.")
    assert {(claim.type, claim.attribute, claim.value) for claim in found} == {
        (MemoryType.FACT, "diet", "no pork"),
        (MemoryType.PREFERENCE, None, None),
    }


@pytest.mark.parametrize(
    "text",
    [
        "I'm tired today and I need a coffee.",
        "I can't find my charger and I need to leave.",
        "DUDE able and want to provide any information.",
    ],
)
def test_a_task_a_moment_or_someone_else_is_no_stance(text: str) -> None:
    assert [claim for claim in claims(text) if claim.type is MemoryType.PREFERENCE] == []
