"""What a plain statement gives for updates by subject without a cue (pure): typed values (a time, a
day, a count of a thing), what the user does at a named place, and a denial in so many words."""

from __future__ import annotations

import pytest

from beliefs.statements import Measure
from reading.held_slots import held_slots
from reading.statement_shape import denies
from reading.subject import measures_of


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The recital starts at 7pm on Friday.", {Measure("time", "7pm"), Measure("weekday", "friday")}),
        ("Lunch is at 12:45 in March.", {Measure("time", "12:45"), Measure("month", "march")}),
        ("Book a table for 5 people.", {Measure("number", "5", "people")}),
        ("The drive is about three and a half hours.", {Measure("number", "three", "hour")}),
        ("My locker is 212, the code is at home.", {Measure("number", "212")}),
        ("It costs 1,250 a year.", {Measure("number", "1250", "year")}),
        ("I have one question.", {Measure("number", "one", "question")}),
        ("Someone may call.", set()),  # "may", lowercase: no month
    ],
)
def test_typed_values_are_read_with_the_noun_a_number_counts(text: str, expected: set) -> None:
    assert measures_of(text) == expected


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("I'm head of sales at Tidewell Packaging now.", [("employer", "Tidewell Packaging")]),
        ("I'm cooking at the Hotel Marlowe now.", [("employer", "Hotel Marlowe")]),
        ("I teach maths at Westbury High.", [("activity:teach", "Westbury High")]),
        ("I've been teaching at Kingsmead College since May.", [("activity:teach", "Kingsmead College")]),
        ("I left St Bride's to join the night team at Harrowgate Trust.", [("employer", "Harrowgate Trust")]),
        ("Tom's firm hired me at Acme Labs.", []),  # Tom's firm: someone else's
        ("I'm home at Christmas.", []),  # a time, not a place
        ("My sister teaches at Oakwood.", []),  # someone else's
        ("I'm staying late tonight.", []),
    ],
)
def test_roles_without_an_article_and_activities_at_a_named_place_are_slots(text: str, slots: list) -> None:
    assert held_slots(text) == slots


@pytest.mark.parametrize(
    ("text", "denial"),
    [
        ("The loft conversion isn't happening.", True),
        ("Not doing the pottery course, I got a refund.", True),
        ("We never went to the gym in the end.", True),
        ("I'm not sure about the venue.", False),  # a hedge
        ("I can't wait for the trip!", False),  # a figure of speech
        ("Don't suggest burgers to me.", False),  # an order to the assistant
        ("She doesn't like the flat.", False),  # someone else's
        ("Isn't the venue lovely?", False),  # asked
        ("If I were not tired I would go.", False),  # hypothetical
    ],
)
def test_a_denial_is_the_users_own_negated_assertion(text: str, denial: bool) -> None:
    assert denies(text) is denial
