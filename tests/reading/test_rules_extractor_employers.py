"""RulesExtractor: an employer said as a description, where it is not one, and leaving it (the seed rows
the audit found main contradicting, docs/seed-coverage.md F1 and F2)."""

from __future__ import annotations

import pytest

from tests.reading.rules_extraction import by_attribute, claims, only

# --- seed rows the audit found main contradicting (docs/seed-coverage.md, F1 and F2), since met ---------

_DESCRIBED_EMPLOYERS = [
    "I work at a fintech startup.",
    "I work for a small fintech startup.",
    "I'm employed at a logistics company in Porto.",
    "I work at a small design agency.",
    "I work remotely for a consultancy in Leeds.",
]


@pytest.mark.parametrize("text", _DESCRIBED_EMPLOYERS)
def test_an_employer_said_as_a_description_is_a_work_fact_of_the_middle_band(text: str) -> None:
    """Seed 000's importance table: "works at a fintech startup" is 0.5-0.8, and a fact has its slot."""
    claim = only(text)
    assert claim.attribute == "works_at"
    assert 0.5 <= claim.importance <= 0.8


@pytest.mark.parametrize(
    ("text", "topic"),
    [
        ("When I deploy, I run the tests, then tag the release and push.", "tech"),
        ("Before I merge a pull request, I run the linters.", "tech"),
        ("I work at a small design agency.", "work"),
        ("I work remotely for a consultancy in Leeds.", "work"),
    ],
)
def test_the_topic_is_the_namespace_the_claim_belongs_to(text: str, topic: str) -> None:
    """Seed 000: topic scopes retrieval, so a deploy routine is tech and an employer is work."""
    assert only(text).topic == topic


@pytest.mark.parametrize(
    ("text", "value", "words"),
    [
        ("I'm an accountant at a family-run bakery.", "a family-run bakery", "a family-run bakery"),
        ("I currently work for a large bank in London.", "a large bank in London", "works for a large bank"),
        (
            "I've been working at a big insurance company for ten years.",
            "a big insurance company",
            "has been working",
        ),
        ("I got a job at a local brewery.", "a local brewery", "got a job at a local brewery"),
        ("I'm working at a marketing agency now.", "a marketing agency", "is working at a marketing agency"),
        ("I work in a warehouse outside Leeds.", "a warehouse outside Leeds", "works in a warehouse"),
        (
            "I joined a small robotics startup last month.",
            "a small robotics startup",
            "joined a small robotics",
        ),
        (
            "I work as a designer at a tiny agency in Lisbon.",
            "a tiny agency in Lisbon",
            "a tiny agency in Lisbon",
        ),
        ("I work for an NGO in Nairobi.", "an NGO in Nairobi", "works for an NGO in Nairobi"),
        ("I work at a startup called Nordwind.", "Nordwind", "Nordwind"),
    ],
)
def test_a_described_employer_is_the_works_at_value_in_the_users_words(
    text: str, value: str, words: str
) -> None:
    claim = by_attribute(text, "works_at")
    assert claim.value == value and 0.5 <= claim.importance <= 0.8 and claim.topic == "work"
    assert words in claim.text


@pytest.mark.parametrize(
    "text",
    [
        "I work at home.",
        "I work at night.",
        "I work at the weekend.",
        "I work for myself.",
        "I work in finance.",
        "I work for the same company as my wife.",
        "I'm a regular at a local pub.",
        "I'm working with a contractor on the kitchen.",
        "I work in a team of five engineers.",
    ],
)
def test_where_or_when_one_works_is_no_employer(text: str) -> None:
    assert all(claim.attribute != "works_at" for claim in claims(text))


def test_leaving_a_described_employer_is_a_negative_works_at() -> None:
    claim = by_attribute("I don't work for a bank anymore.", "works_at")
    assert claim.value == "a bank" and claim.polarity.value == "negative"
