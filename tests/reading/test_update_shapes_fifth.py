"""Update shapes read by sentence structure, fifth pass (issue 24.1): what a clause says "ended",
"expired" or "ran out" is over (its subject); "I'd assumed X" corrects X; "X, yes, but ..." confirms
one part and corrects another; "traded them around" is a change. Negated, they are none."""

from __future__ import annotations

import pytest

from beliefs.statements import UpdateKind
from reading.statement_shape import read_shape


@pytest.mark.parametrize(
    ("text", "ended"),
    [
        ("We moved to a flat in Hove after the Brighton tenancy ended.", ("brighton",)),
        ("My Duolingo subscription expired, so I'm on Babbel.", ("duolingo",)),
        ("The Acme contract ran out in June and I went freelance.", ("acme",)),
    ],
)
def test_what_ended_is_the_clauses_subject(text: str, ended: tuple[str, ...]) -> None:
    shape = read_shape(text)
    assert shape is not None and shape.ends and ended in shape.replaced


@pytest.mark.parametrize("text", ["The Brighton tenancy hasn't ended yet.", "We ended up in Hove.", "The film ended with a chase."])
def test_an_ending_negated_or_ended_up_ends_nothing(text: str) -> None:
    shape = read_shape(text)
    assert shape is None or not shape.ends


def test_an_assumption_admitted_corrects_the_value_assumed() -> None:
    shape = read_shape("The ferry leaves from Holyhead. I'd assumed Fishguard.")
    assert shape is not None and shape.kind is UpdateKind.CORRECTION and ("fishguard",) in shape.replaced
    assert read_shape("I'd assumed it would rain.").replaced == ()  # no value named: nothing replaced


def test_yes_but_after_a_confirmed_part_corrects() -> None:
    shape = read_shape("Tuesday, yes, but the class is at 7pm.")
    assert shape is not None and shape.kind is UpdateKind.CORRECTION
    assert read_shape("Yes, but only on weekdays.") is None  # an answer opening on "yes" corrects nothing


def test_trading_two_things_around_is_a_change() -> None:
    shape = read_shape("We traded the rooms around: Sam has the attic and Ben the box room.")
    assert shape is not None and shape.kind is UpdateKind.CHANGE and shape.explicit


def test_a_passive_move_is_a_change() -> None:
    shape = read_shape("The dentist appointment got moved to the 9th.")
    assert shape is not None and shape.kind is UpdateKind.CHANGE and shape.explicit
