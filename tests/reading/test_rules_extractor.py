"""RulesExtractor: the seed's classification table, attributes, framing, constraints, speakers and dates.

Natural chat and the extractor contract are in test_rules_extractor_chat.py; secrets and the LoCoMo
corpus in test_rules_extractor_safety.py; described employers in test_rules_extractor_employers.py.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from beliefs.records import MemoryType, RecallSemantics
from reading.extract.text import third_person
from tests.reading.rules_extraction import EXTRACTOR, TS, by_attribute, claims, only, turn

# --- the seed's classification table -------------------------------------------------------------


def test_stated_preference_is_stored() -> None:
    claim = only("I always use dark mode")
    assert (claim.type, claim.attribute, claim.value) == (MemoryType.PREFERENCE, "preferred_theme", "dark")
    assert claim.text == "User prefers dark mode."
    assert claim.importance >= 0.8 and claim.confidence >= 0.85


def test_self_disclosure_is_stored() -> None:
    claim = only("I'm a backend engineer")
    assert (claim.type, claim.attribute, claim.value) == (MemoryType.FACT, "role", "backend engineer")
    assert claim.text == "User is a backend engineer."
    assert 0.85 <= claim.confidence <= 0.95


def test_decision_is_stored_with_high_importance() -> None:
    claim = only("I chose PostgreSQL for this project")
    assert claim.type is MemoryType.DECISION
    assert claim.value == "PostgreSQL"
    assert claim.text == "User chose PostgreSQL for this project."
    assert claim.importance >= 0.8


def test_explicit_correction_is_stored_and_marked() -> None:
    claim = only("No, I use pytest not unittest")
    assert (claim.type, claim.attribute, claim.value) == (
        MemoryType.PREFERENCE,
        "preferred_test_framework",
        "pytest",
    )
    assert claim.is_correction and claim.importance >= 0.85
    assert "unittest" in claim.text and "pytest" in claim.text


@pytest.mark.parametrize(
    "text",
    ["Thanks, that's helpful!", "I'm tired today", "Oh great, another meeting", "ok", "lol", "hello there!",
     "Sounds good, thanks!", "🙂", "What's the weather?", "Can you explain recursion?", "yeah right"],
)  # fmt: skip
def test_skipped_rows_yield_nothing(text: str) -> None:
    assert claims(text) == []


def test_hypothetical_is_stored_with_low_confidence() -> None:
    claim = only("What if I were a doctor?")
    assert claim.confidence <= 0.3
    assert (claim.attribute, claim.value) == ("role", "doctor")
    assert "hypothetical" in claim.text


@pytest.mark.parametrize(
    ("text", "attribute", "value"),
    [
        ("What if I were a doctor?", "role", "doctor"),
        ("imagine I worked at Google", "works_at", "Google"),
        ("Pretend I'm a pilot for this one.", "role", "pilot"),
        ("I'm basically a chef", "role", "chef"),
        ("I'm actually a doctor, so walk me through the mechanism more technically.", "role", "doctor"),
        ("Let's say I lived in Paris, where would I eat?", "lives_in", "Paris"),
        ("Suppose I was a lawyer.", "role", "lawyer"),
        ("Hypothetically, I work at Netflix.", "works_at", "Netflix"),
    ],
)
def test_hypotheticals_and_leverage_stay_below_point_three(text: str, attribute: str, value: str) -> None:
    claim = by_attribute(text, attribute)
    assert claim.value == value
    assert claim.confidence <= 0.3 and claim.importance <= 0.3


def test_roleplay_without_structure_yields_nothing_trusted() -> None:
    assert all(claim.confidence <= 0.3 for claim in claims("pretend I'm a pirate"))


@pytest.mark.parametrize(
    "text",
    [
        "I'm considering switching to Rust",
        "maybe I'll move to Berlin",
        "I'm thinking about learning Japanese",
    ],
)
def test_hedged_intent_has_middling_confidence(text: str) -> None:
    claim = only(text)
    assert claim.type is MemoryType.DECISION
    assert 0.4 <= claim.confidence <= 0.6


# --- attributes, many phrasings -----------------------------------------------------------------

ATTRIBUTES = [
    ("I work at Acme Corp.", "works_at", "Acme Corp"),
    ("I work for Stripe as a designer.", "works_at", "Stripe"),
    ("I just joined Shopify!", "works_at", "Shopify"),
    ("I'm a data scientist at Spotify.", "works_at", "Spotify"),
    ("I live in Lisbon.", "lives_in", "Lisbon"),
    ("I'm based in San Francisco these days.", "lives_in", "San Francisco"),
    ("I moved to Berlin last year.", "lives_in", "Berlin"),
    ("I'm originally from Lagos.", "hometown", "Lagos"),
    ("My name is Dana.", "name", "Dana"),
    ("Please call me Sam.", "preferred_name", "Sam"),
    ("Please reply in Spanish.", "preferred_language", "Spanish"),
    ("My native language is German.", "preferred_language", "German"),
    ("I'm allergic to peanuts.", "allergy", "peanuts"),
    ("I have a severe shellfish allergy", "allergy", "shellfish"),
    ("I'm a nurse.", "role", "nurse"),
    ("I work as a product manager.", "role", "product manager"),
    ("I use Neovim.", "preferred_editor", "Neovim"),
    ("I mostly code in Python.", "preferred_programming_language", "Python"),
    ("My favorite language is Rust.", "preferred_programming_language", "Rust"),
    ("I write mostly TypeScript.", "preferred_programming_language", "TypeScript"),
    ("My timezone is PST", "timezone", "PST"),
    ("I'm on Eastern time.", "timezone", "Eastern"),
    ("I prefer morning meetings", "preferred_meeting_time", "morning"),
    ("afternoon calls work best now", "preferred_meeting_time", "afternoon"),
    ("Please schedule meetings in the evening.", "preferred_meeting_time", "evening"),
    ("I'm vegetarian.", "diet", "vegetarian"),
    ("I'm a strict vegan", "diet", "vegan"),
    ("As a vegetarian, what should I cook?", "diet", "vegetarian"),
    ("I don't eat pork.", "diet", "no pork"),
    ("My pronouns are they/them.", "pronouns", "they/them"),
    ("I use she/her pronouns", "pronouns", "she/her"),
    ("I love sushi.", "likes", "sushi"),
    ("I'm a huge fan of jazz.", "likes", "jazz"),
    ("My favorite band is Radiohead.", "likes", "Radiohead"),
    ("I hate cilantro.", "dislikes", "cilantro"),
    ("I can't stand country music.", "dislikes", "country music"),
    ("I have a dog named Rex.", "has_pet", "dog Rex"),
    ("I just adopted a puppy named Max", "has_pet", "puppy Max"),
    ("My cat Luna sleeps all day.", "has_pet", "cat Luna"),
    ("I have two kids.", "has_child", "two kids"),
    ("My daughter Emma started school.", "has_child", "daughter Emma"),
    ("I've been painting for 10 years", "hobby", "painting"),
    ("I play the guitar.", "hobby", "the guitar"),
    ("I took up pottery last month.", "hobby", "pottery"),
    ("I have asthma.", "medical_condition", "asthma"),
    ("I'm colorblind.", "accessibility", "colorblind"),
    ("I use a screen reader.", "accessibility", "uses a screen reader"),
    ("I prefer concise answers.", "communication_style", "concise"),
    ("I'm 34 years old.", "age", "34"),
    ("I got married in June.", "relationship_status", "married"),
    ("I'm in Tokyo this week.", "located_in", "Tokyo"),
    ("My goal is to run a marathon.", "goal", "run a marathon"),
    ("I decided to learn Spanish.", "decision", "learn Spanish"),
]


@pytest.mark.parametrize(("text", "attribute", "value"), ATTRIBUTES)
def test_attribute_phrasings(text: str, attribute: str, value: str) -> None:
    claim = by_attribute(text, attribute)
    assert claim.value == value
    assert claim.entity == "user"
    assert claim.evidence and claim.evidence in text
    assert claim.text.startswith("User") and claim.text.endswith(".")
    assert claim.half_life_days and claim.half_life_days > 0


@pytest.mark.parametrize(
    ("text", "topic", "profile"),
    [
        ("My name is Dana.", "personal", True),
        ("Please reply in French.", "personal", True),
        ("My timezone is CET", "personal", True),
        ("I prefer concise answers.", "personal", True),
        ("I'm colorblind.", "health", True),
        ("I work at Acme.", "work", False),
        ("I'm allergic to shellfish!", "health", False),
        ("I always use dark mode", "tech", False),
        ("My kids love dinosaurs", "personal", False),
        ("I went to a concert downtown yesterday.", "entertainment", False),
    ],
)
def test_topic_and_profile(text: str, topic: str, profile: bool) -> None:
    claim = claims(text)[0]
    assert (claim.topic, claim.profile) == (topic, profile)


def test_half_life_comes_from_the_registry() -> None:
    assert only("I'm in Tokyo this week.").half_life_days == 7
    assert by_attribute("I'm allergic to nuts.", "allergy").half_life_days == 1825


@pytest.mark.parametrize(
    ("text", "minimum"),
    [
        ("I'm allergic to peanuts!", 0.9),
        ("I'm deathly allergic to bees", 0.95),
        ("No, I live in Porto now.", 0.85),
    ],
)
def test_importance_of_allergies_and_corrections(text: str, minimum: float) -> None:
    assert claims(text)[0].importance >= minimum


def test_passing_mentions_are_low_importance() -> None:
    claim = only("I watched a documentary about octopuses.")
    assert 0.2 <= claim.importance <= 0.5


def test_correction_against_an_earlier_value() -> None:
    claim = only("Actually, I live in Porto, not Lisbon.")
    assert (claim.attribute, claim.value, claim.is_correction) == ("lives_in", "Porto", True)
    assert claim.importance >= 0.85 and claim.confidence >= 0.9


@pytest.mark.parametrize(
    "text",
    ["I use pytest, not unittest.", "I prefer Vim instead of Emacs", "I use light mode, not dark mode"],
)
def test_contrast_marks_a_correction(text: str) -> None:
    claim = only(text)
    assert claim.is_correction and claim.importance >= 0.85


def test_context_scopes_a_value() -> None:
    claim = only("for my consulting work I prefer mornings")
    assert (claim.attribute, claim.value, claim.context) == (
        "preferred_meeting_time",
        "morning",
        "consulting",
    )
    assert by_attribute("At work I use VS Code.", "preferred_editor").context == "work"


# --- negative memory ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "trigger"),
    [
        ("Never recommend Alto again, that was a disaster", {"action": "recommend", "object": "Alto"}),
        ("Don't suggest that sushi restaurant again.", {"action": "recommend", "domain": "restaurant"}),
        ("Please never recommend Hotel Lux for my stays.", {"action": "recommend", "domain": "hotel"}),
        ("don't call me on the phone", {"action": "contact", "channel": "phone"}),
        ("Please don't email me.", {"action": "contact", "channel": "email"}),
        ("Don't text me after 9pm", {"action": "contact", "channel": "sms"}),
        ("Never auto-merge my PRs.", {"action": "auto-merge", "object": "my PRs"}),
        ("Stop using emojis.", {"action": "use", "object": "emojis"}),
    ],
)
def test_constraints_carry_triggers(text: str, trigger: dict[str, str]) -> None:
    claim = only(text)
    assert claim.recall_semantics is RecallSemantics.CONSTRAINT
    assert claim.type is MemoryType.PREFERENCE
    assert claim.trigger == trigger
    assert claim.importance >= 0.85
    assert claim.text != text


def test_first_person_never_is_not_a_constraint() -> None:
    assert all(claim.recall_semantics is RecallSemantics.DEFAULT for claim in claims("I never use tabs."))


# --- speakers, dates, volatile facts ------------------------------------------------------------


def test_speaker_is_named_instead_of_user() -> None:
    claim = only("I'm a transgender woman.", speaker="Caroline")
    assert claim.text == "Caroline is a transgender woman."
    assert claim.entity == "Caroline"
    assert by_attribute("I work at Acme.", "works_at").entity == "user"


def test_structured_claim_uses_the_speaker_name() -> None:
    found = EXTRACTOR.extract_turn(turn("I live in Boston and I have two cats.", speaker="Melanie"))
    assert [claim.text for claim in found] == ["Melanie lives in Boston.", "Melanie has two cats."]
    assert {claim.entity for claim in found} == {"Melanie"}


def test_relative_date_goes_into_text_and_valid_from() -> None:
    claim = only("I went to a LGBTQ support group yesterday and it was so powerful.", speaker="Caroline")
    assert claim.text == "Caroline went to a LGBTQ support group on 2023-05-07."
    assert claim.valid_from == datetime(2023, 5, 7, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "needle", "valid_from"),
    [
        ("Last Tuesday I ran my first half marathon.", "2023-05-02", date(2023, 5, 2)),
        ("I started a pottery class two days ago.", "2023-05-06", date(2023, 5, 6)),
        ("I visited my grandma last week.", "the week of 2023-05-01", date(2023, 5, 1)),
        ("I'm going camping this weekend.", "the weekend of 2023-05-13", None),
        ("I'm planning to visit Japan next month.", "June 2023", None),
    ],
)
def test_relative_dates(text: str, needle: str, valid_from: date | None) -> None:
    claim = claims(text)[0]
    assert needle in claim.text
    assert (claim.valid_from.date() if claim.valid_from else None) == valid_from


def test_volatile_location_expires_with_its_period() -> None:
    claim = only("I'm in Tokyo this week.")
    assert claim.attribute == "located_in" and claim.expires_at == datetime(2023, 5, 15, tzinfo=UTC)
    default = only("I'm in Madrid right now.")
    assert default.expires_at is not None and (default.expires_at - TS).days == 7


@pytest.mark.parametrize(
    ("clause", "rewritten"),
    [
        ("My wife and I are moving to Porto", "Sam and their wife are moving to Porto"),
        ("my husband and I have been to Peru twice", "Sam and their husband have been to Peru twice"),
        ("Me and my brother run a café in Ghent", "Sam and their brother run a café in Ghent"),
        ("I and my flatmate share a car", "Sam and their flatmate share a car"),
        ("Priya and I are co-founders of Loomly", "Priya and Sam are co-founders of Loomly"),
        ("I told my boss and I quit the same day", "Sam told their boss and Sam quit the same day"),
        ("I went to Rome with my mom and I loved it", "Sam went to Rome with their mom and Sam loved it"),
        ("I'm flying to NYC, and my sister and I are staying in SoHo",
         "Sam is flying to NYC, and Sam and their sister are staying in SoHo"),
    ],
)  # fmt: skip
def test_a_plural_subject_the_speaker_is_part_of_keeps_its_verb_and_people(clause: str, rewritten: str) -> None:
    assert third_person(clause, "Sam", "Sam's") == rewritten
