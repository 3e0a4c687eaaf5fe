"""Withdrawals of the user's own words (`reading.withdrawal`) and their shape (`reading.statement_shape`):
the cue, what is withdrawn, and what is no withdrawal. Phrasings written for this test, none from an
evaluation set."""

from __future__ import annotations

import pytest

from beliefs.statements import UpdateKind
from reading.statement_shape import read_shape
from reading.subject import value_terms
from reading.withdrawal import withdrawals

NAMED = [
    ("Forget the kayak, there's nowhere to store it.", value_terms("kayak")),
    ("Ok forget what I said about the Lisbon flat, we're renting in Porto.", value_terms("Lisbon flat")),
    ("I take back what I said about Marcus, he's been great.", value_terms("Marcus")),
    ("Ignore the bit about the piano, we're keeping it.", value_terms("piano")),
    ("Never mind the pottery thing, the class is full.", value_terms("pottery")),
    ("I was only kidding about the motorbike.", value_terms("motorbike")),
    ("Don't hold me to the Bath 10k, my ankle's still sore.", value_terms("Bath 10k")),
    ("Pretend I never said that about the puppy.", value_terms("puppy")),
    ("Cross the Edinburgh trip off the list.", value_terms("Edinburgh trip")),
    ("The garden office is off the table, the quote was mad.", value_terms("garden office")),
]


@pytest.mark.parametrize(("text", "what"), NAMED)
def test_a_withdrawal_names_what_it_withdraws(text: str, what: tuple[str, ...]) -> None:
    assert [named for _, named in withdrawals(text)] == [what]


@pytest.mark.parametrize(("text", "what"), NAMED)
def test_a_withdrawal_is_a_cessation_naming_it_that_may_link_by_meaning(text: str, what: tuple[str, ...]) -> None:
    shape = read_shape(text)
    assert shape is not None and shape.ends and shape.withdraws and what in shape.replaced
    assert shape.kind in (UpdateKind.CESSATION, UpdateKind.CORRECTION)


@pytest.mark.parametrize("text", ["Scratch that, it's on Thursday.", "Forget it, I'll take the bus.", "I take that back."])
def test_a_withdrawal_that_only_points_back_names_nothing(text: str) -> None:
    found = withdrawals(text)
    assert found and all(what == () for _, what in found)
    shape = read_shape(text)
    assert shape is None or not shape.withdraws  # no subject of its own: only the usual links


@pytest.mark.parametrize(
    "text",
    [
        "Don't forget the milk on your way home.",
        "I forgot my keys at the office.",
        "I was joking with Priya about the wedding speech.",
        "I can't ignore the noise from upstairs.",
        "Never mind, I found it.",
        "Can you scratch-test the paint for me?",
        "Are you kidding me?",
    ],
)
def test_no_withdrawal_of_what_was_said(text: str) -> None:
    assert all(what == () for _, what in withdrawals(text))
    shape = read_shape(text)
    assert shape is None or not shape.withdraws


def test_a_withdrawal_asked_as_a_question_or_quoted_withdraws_nothing() -> None:
    assert read_shape("Should I just forget the kayak?") is None
    assert read_shape('She said "forget the kayak" and walked off.') is None or not read_shape(
        'She said "forget the kayak" and walked off.'
    ).withdraws


@pytest.mark.parametrize(
    ("text", "ended"),
    [
        ("I left Carrick Freight in May.", "Carrick"),
        ("Gave my notice at Tolworth Bank today.", "Tolworth"),
        ("Hexley made me redundant in the spring.", None),
        ("Marlow Print and I parted ways.", None),
    ],
)
def test_the_end_of_a_job_in_other_words_is_a_cessation(text: str, ended: str | None) -> None:
    """Leaving an employer by name, giving notice, being made redundant, parting ways: the old one ends."""
    shape = read_shape(text)
    assert shape is not None and shape.kind is UpdateKind.CESSATION and shape.ends
    if ended is not None:
        assert value_terms(ended) in shape.replaced


def test_leaving_something_of_someone_else_is_no_cessation_of_the_user() -> None:
    assert read_shape("She left Carrick Freight in May.") is None


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("Ditch the sauna idea, the electrics can't take it.", "sauna"),
        ("I've abandoned the keto thing, too hard with the kids.", "keto"),
        ("The ukulele is a thing of the past.", "ukulele"),
        ("The book club is over, everyone got too busy.", "book club"),
    ],
)
def test_dropping_or_giving_up_what_was_announced_is_a_withdrawal(text: str, what: str) -> None:
    assert value_terms(what) in [named for _, named in withdrawals(text)]


@pytest.mark.parametrize("text", ["Drop the kids at school by 8, please.", "Bin day is Thursday.", "The new iPhone is out."])
def test_everyday_verbs_of_putting_away_are_no_withdrawal(text: str) -> None:
    assert withdrawals(text) == []
