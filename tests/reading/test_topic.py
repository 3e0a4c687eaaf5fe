"""The topic a claim is filed under (seed 000: the namespace recall scopes by), through the rules
extractor and in `reading.extract.topic` alone."""

from __future__ import annotations

import pytest

from reading.extract.topic import topic_of, topic_scores
from tests.reading.rules_extraction import claims


@pytest.mark.parametrize(
    ("text", "topic"),
    [
        ("Every time I ship a release, I bump the version, build the wheel and upload it.", "tech"),
        ("My deploy routine: run the migrations, restart the workers, then check the logs.", "tech"),
        ("I always squash my commits before I open a pull request.", "tech"),
        ("I use Neovim with a custom Lua config.", "tech"),
        ("I switched our backend from Flask to FastAPI last month.", "tech"),
        ("I write all my scripts in Bash.", "tech"),
        ("I keep my dotfiles in a private repo.", "tech"),
        ("I decided to move our database to Postgres.", "tech"),
        ("I run my unit tests on every save.", "tech"),
        ("I prefer tabs over spaces.", "tech"),
        ("I have a standup with my team every morning at nine.", "work"),
        ("My boss wants the quarterly report by Friday.", "work"),
        ("I got promoted to team lead in March.", "work"),
        ("I'm interviewing for a new job next week.", "work"),
        ("I work at a small design agency.", "work"),
        ("I'm employed by a regional bank in Ohio.", "work"),
        ("I've been freelancing for three years.", "work"),
        ("I have too many meetings on Mondays.", "work"),
        ("I'm presenting to the client on Thursday.", "work"),
        ("My manager is on leave until June.", "work"),
        ("I run five kilometres every morning.", "health"),
        ("I go to the gym three times a week.", "health"),
        ("I'm training for a half marathon.", "health"),
        ("I take medication for my blood pressure.", "health"),
        ("I've been sleeping badly for weeks.", "health"),
        ("I'm allergic to penicillin.", "health"),
        ("I do yoga before bed.", "health"),
        ("I tore a ligament in my knee skiing.", "health"),
        ("I quit smoking last year.", "health"),
        ("I love spicy Thai curry.", "food"),
        ("I bake sourdough bread every weekend.", "food"),
        ("My favourite breakfast is porridge with berries.", "food"),
        ("I can't stand coriander.", "food"),
        ("I drink two espressos a day.", "food"),
        ("I'm learning to cook Korean food.", "food"),
        ("I prefer oat milk in my coffee.", "food"),
        ("I'm flying to Lisbon next month.", "travel"),
        ("I spent two weeks backpacking through Vietnam.", "travel"),
        ("I always book a window seat on flights.", "travel"),
        ("I went camping in the Highlands last summer.", "travel"),
        ("I'm planning a road trip along the coast.", "travel"),
        ("I'm saving for a deposit on a flat.", "finance"),
        ("I put ten percent of my salary into an index fund.", "finance"),
        ("I pay off my credit card every month.", "finance"),
        ("I'm trying to stick to a monthly budget.", "finance"),
        ("I bought some Apple shares last year.", "finance"),
        ("I still have a student loan to pay off.", "finance"),
        ("I've been binge-watching a Korean drama on Netflix.", "entertainment"),
        ("I play the piano in the evenings.", "entertainment"),
        ("My favourite band is Radiohead.", "entertainment"),
        ("I read a lot of science fiction novels.", "entertainment"),
        ("I'm going to a jazz festival in July.", "entertainment"),
        ("I love board games with friends.", "entertainment"),
        ("I've been playing a lot of Zelda lately.", "entertainment"),
        ("I have two cats called Miso and Tofu.", "personal"),
        ("My sister lives in Dublin.", "personal"),
        ("I got married in 2019.", "personal"),
        ("My daughter starts school in September.", "personal"),
        ("I live in Manchester.", "personal"),
        ("My name is Priya.", "personal"),
        ("I walk the dog after dinner.", "personal"),
        ("My partner and I just moved into a new apartment.", "personal"),
    ],
)
def test_every_claim_of_a_sentence_is_filed_under_its_topic(text: str, topic: str) -> None:
    found = claims(text)
    assert found and [claim.topic for claim in found] == [topic] * len(found), [
        (c.topic, c.text) for c in found
    ]


def test_an_attribute_with_a_topic_of_its_own_decides_before_the_words() -> None:
    assert topic_of("User works at a restaurant that bakes bread.", "works_at") == "work"
    assert topic_of("User is allergic to penicillin, a medication for infections.", "allergy") == "health"


def test_a_known_tool_or_language_as_the_value_is_tech() -> None:
    assert topic_of("User and their team went with Rust for the parser.", "decision", value="Rust") == "tech"
    assert topic_of("User decided to go vegan.", "decision", value="go vegan") == "health"


def test_every_keyword_counts_not_the_first() -> None:
    """ "run" is a race or the tests: the deploy words outvote it; alone it still says health."""
    text = "User's procedure When User deploys: run the tests, then tag the release and push."
    assert topic_scores(text)["tech"] > topic_scores(text)["health"] > 0
    assert topic_of(text) == "tech"
    assert topic_of("User runs every evening.") == "health"
    assert topic_of("User runs the tests and the linters.") == "tech"


def test_ambiguous_words_of_two_topics_leave_the_fallback() -> None:
    assert topic_of("User bought a house.", "decision") == "personal"  # finance? home? neither wins


def test_stems_meet_and_a_phrase_counts_as_one_term() -> None:
    assert topic_of("User deploying on Fridays is a bad idea.") == "tech"
    assert topic_of("User runs the smoke tests before each release.") == "tech"  # not smoking
    assert topic_of("User opens a pull request for every change.") == "tech"


def test_when_a_thing_is_done_is_not_what_it_is_about() -> None:
    assert topic_of("User's morning routine: run 5k before work.") == "health"
    assert topic_of("User walks the dog after dinner.") == "personal"


def test_the_sentence_counts_as_context_below_the_claims_own_words() -> None:
    assert (
        topic_of("User runs the linters.", context="Before I merge a pull request, I run the linters.")
        == "tech"
    )
    assert topic_of("User loves sushi.", "likes", context="After the concert we had sushi.") == "food"


def test_no_keyword_is_the_default_or_the_attributes_fallback() -> None:
    assert topic_of("User said hello.") == "personal"
    assert topic_of("User uses Obsidian.", "uses_tool") == "tech"
