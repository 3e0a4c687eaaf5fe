"""RulesExtractor on natural chat: experiences and reactions, several sentences, roles, injected
blocks, and the `Extractor` contract (order, determinism, limits)."""

from __future__ import annotations

import pytest

from beliefs.records import Role
from reading.extract import Extractor, RulesExtractor
from tests.reading.rules_extraction import EXTRACTOR, claims, turn


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I've been painting for 10 years", "User has been painting for 10 years."),
        ("My kids love dinosaurs", "User's kids love dinosaurs."),
        ("I just adopted a puppy named Max", "User just adopted a puppy named Max."),
        (
            "Yeah, I volunteer at the animal shelter on weekends.",
            "User volunteers at the animal shelter on weekends.",
        ),
        (
            "Gonna continue my edu and check out career options!",
            "User is going to continue their edu and check out career options.",
        ),
    ],
)
def test_experiences_become_third_person_facts(text: str, expected: str) -> None:
    assert claims(text)[0].text == expected


@pytest.mark.parametrize(
    "text",
    ["I'm so happy for you!", "I think that's a great idea.", "I love that!", "I'll give it a try!",
     "You'd be a great counselor!", "I can't wait to see it.", "I hope so too.", "I agree with you completely."],
)  # fmt: skip
def test_reactions_yield_nothing(text: str) -> None:
    assert claims(text) == []


def test_several_sentences_several_claims_at_most_five() -> None:
    text = (
        "I'm a nurse. I live in Leeds. I'm allergic to latex. I have two kids. I play the piano. "
        "I love hiking. My name is Jo."
    )
    found = claims(text)
    assert len(found) == 5
    assert {claim.attribute for claim in found} >= {"allergy", "name"}  # the most important survive
    assert [claim.evidence for claim in found] == sorted((claim.evidence for claim in found), key=text.index)


def test_greeting_plus_disclosure_keeps_the_disclosure() -> None:
    assert [claim.attribute for claim in claims("Hi! Thanks so much. I'm allergic to peanuts.")] == [
        "allergy"
    ]


@pytest.mark.parametrize("role", [Role.ASSISTANT, Role.SYSTEM, Role.TOOL])
def test_non_user_roles_yield_nothing(role: Role) -> None:
    assert claims("I'm a doctor and I live in Paris.", role=role) == []


def test_injected_memory_blocks_are_not_re_extracted() -> None:
    text = (
        "<beliefstream-memories>User works at Initech. I'm a pilot.</beliefstream-memories> I live in Oslo."
    )
    assert [claim.attribute for claim in claims(text)] == ["lives_in"]


def test_given_text_is_used_instead_of_the_turn_text() -> None:
    found = EXTRACTOR.extract_turn(turn("I live in Oslo."), text="I live in Rome.")
    assert [claim.value for claim in found] == ["Rome"]


def test_deterministic() -> None:
    text = "I'm a nurse in Leeds. I went hiking yesterday. Never suggest Pizza Hut again."
    assert claims(text) == claims(text)


async def test_async_extract_keeps_order_and_is_an_extractor() -> None:
    turns = [
        turn("hi"),
        turn("I work at Acme."),
        turn("I'm a nurse.", role=Role.ASSISTANT),
        turn("I'm vegan"),
    ]
    result = await EXTRACTOR.extract(turns)
    assert [[claim.attribute for claim in found] for found in result] == [[], ["works_at"], [], ["diet"]]
    assert isinstance(EXTRACTOR, Extractor) and EXTRACTOR.name == "rules"


def test_max_claims_is_validated() -> None:
    with pytest.raises(ValueError):
        RulesExtractor(max_claims=6)
    assert RulesExtractor(max_claims=0).extract_turn(turn("I'm a nurse.")) == []
