"""Whose words a quotation is (reading.quotation), and what follows for the turn's voice and its claims.

A quotation the user's own sentence uses as a phrase (a line they name, read or repeat, words they
report of themselves) keeps the turn theirs, and nothing inside it becomes a claim; reported speech of
another, a quotation shown after a colon or opening its sentence, stays someone else's. A block set
apart by rule lines after a request is pasted.
"""

from __future__ import annotations

import pytest

from beliefs.records import Trust
from reading.provenance import Voice, provenance_of, read
from reading.quotation import masked, quotations
from tests.reading.rules_extraction import claims, turn


def claim_texts(text: str) -> list[str]:
    return [c.text for c in claims(text)]


@pytest.mark.parametrize(
    ("text", "mention"),
    [
        ('The toast I give at every wedding is "I have never been happier to be wrong."', True),
        ('On long swims I count strokes and think "I am a fish, I am a fish".', True),
        ('I always tell my students "I was bad at maths too" and it helps.', True),
        ('My cousin said "I am moving to Perth next spring" at dinner.', False),
        ('The recruiter wrote: "You are our first choice for the role."', False),
        ('"I quit the band," was all the text said.', False),
        ("My grandad's favourite saying was \"" + " ".join(["word"] * 30) + '"', False),
    ],
)
def test_a_quotation_is_a_mention_or_someone_elses_words(text: str, mention: bool) -> None:
    (quote,) = quotations(text)
    assert quote.mention is mention, quote.why


@pytest.mark.parametrize(
    "text",
    [
        'The toast I give at every wedding is "I have never been happier to be wrong."',
        'On long swims I count strokes and think "I am a fish, I am a fish".',
    ],
)
def test_a_mention_keeps_the_turn_the_users_own_voice(text: str) -> None:
    assert provenance_of(turn(text), text).max_trust is Trust.TRUSTED


def test_nothing_inside_a_mention_becomes_a_claim_and_the_claim_keeps_its_words() -> None:
    texts = claim_texts('My favourite song lyric is "I am the walrus".')
    assert texts and all("User is the walrus" not in t for t in texts)
    assert any('"I am the walrus"' in t for t in texts)


def test_no_sentence_of_someone_elses_quotation_is_read_as_the_users() -> None:
    text = (
        'My neighbour messaged "I am selling the house. I have found a flat in Cork." Should I make an offer?'
    )
    assert not any("Cork" in t or "selling" in t for t in claim_texts(text))
    assert masked(text).restore(masked(text).text) == text


def test_a_pronoun_inside_a_mention_is_not_rewritten() -> None:
    texts = claim_texts('I\'ve started taking "me-time" walks along the canal every evening.')
    assert any('"me-time"' in t for t in texts)


@pytest.mark.parametrize(
    ("text", "evidence"),
    [
        ("Can you make this friendlier?\n---\nI am the new head of procurement and I expect invoices by Friday.\n---",
         "I am the new head of procurement and I expect invoices by Friday."),
        ("Worth a reply?\n***\nI have twenty years in aviation and I am looking for a co-founder.",
         "I have twenty years in aviation and I am looking for a co-founder."),
    ],
)  # fmt: skip
def test_a_block_set_apart_by_rule_lines_after_a_request_is_pasted(text: str, evidence: str) -> None:
    assert read(turn(text), text).of_claim(evidence).voice is Voice.QUOTED
    assert provenance_of(turn(text), text).voice is Voice.MIXED


def test_a_rule_line_in_the_users_own_notes_is_not_a_paste() -> None:
    text = "Training log\n---\nI ran 8 km on Monday and swam on Wednesday."
    assert provenance_of(turn(text), text).voice is Voice.OWN


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("My cousin texted: I am quitting my PhD and moving to Oslo.", "Oslo"),
        ("Reply to this for me? 'I have run a bakery for twenty years and I am selling it.'", "bakery"),
    ],
)
def test_words_after_anothers_name_and_a_colon_or_in_single_quotes_are_not_the_users(
    text: str, words: str
) -> None:
    assert provenance_of(turn(text), text).voice is Voice.MIXED
    assert not any(words in t for t in claim_texts(text))


def test_the_users_own_words_after_a_colon_stay_theirs() -> None:
    text = "I told my manager: I am taking the whole of August off."
    assert provenance_of(turn(text), text).voice is Voice.OWN


def test_a_single_quoted_name_is_a_title() -> None:
    text = "We hung a sign in the hall that says 'Welcome Home' and it makes me smile."
    assert provenance_of(turn(text), text).voice is Voice.OWN
