"""Whose thing a statement opens on, and whether it says it adds (`reading.holder`)."""

from __future__ import annotations

import pytest

from reading.holder import SELF, adds, holder


@pytest.mark.parametrize(
    ("text", "who"),
    [
        ("I live in Perth.", SELF),
        ("We're renting in Hove.", SELF),
        ("My parents live in Inverness.", "parents"),
        ("Our eldest, Mira, is at Leith Academy.", "eldest:mira"),
        ("My best friend Ellie lives in Bristol.", "friend:ellie"),
        ("Mum's sister Jean lives in Dunfermline.", "sister"),
        ("My dentist is Dr Ahmed.", None),  # a role, not a person the statement is about
        ("Aoife's moved to Cork.", None),  # a name: not said whose
    ],
)
def test_the_holder_is_who_the_first_clause_opens_on(text: str, who: str | None) -> None:
    assert holder(text) == who


def test_adding_words_say_the_statement_adds() -> None:
    assert adds("We also got a puppy, Bramble.")
    assert adds("I do Pilates on Fridays too.")
    assert not adds("The puppy is called Bramble.")


def test_a_persons_person_is_the_holder() -> None:
    assert holder("My partner's brother works at the council.") == "brother"
    assert holder("My partner's car is a Golf.") == "partner"
