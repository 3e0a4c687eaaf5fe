"""Another name where one stood (`beliefs.another_name`, through `judge`): a later statement giving
the subject of an earlier one another name, with no word of change, links it possibly; what adds,
what is another person's, and what names both does not."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from math import acos, cos, sin

import pytest

from beliefs.supersession import judge
from reading.statement_shape import denies, read_shape
from reading.subject import statement_of

T0 = datetime(2026, 3, 1, tzinfo=UTC)


def at_cosine(value: float) -> list[float]:
    angle = acos(value)
    return [cos(angle), sin(angle)]


def said(item_id: str, text: str, days: int, similarity: float):
    shape = read_shape(text)
    return statement_of(
        item_id, "episode", text, T0 + timedelta(days=days), None, at_cosine(similarity), shape,
        denies=shape is None and denies(text),
    )  # fmt: skip


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("My physio is Dr Mensah at the Eastgate clinic.", "Dr Varga is my physio at Eastgate, much better with knees."),
        ("My brother Callum lives in Dundee.", "Callum's found a flat in Aberdeen, right by the beach."),
        ("My brother Callum lives in Dundee.", "My brother's found a flat in Aberdeen, loves it."),  # the name said once
        # the old name comes back in another clause, as the reason
        ("The quiz night is at the Crown on Friday.", "The Crown shut its function room, so the quiz night is at the Anchor."),
        ("Our ballet teacher is Miss Okonjo.", "Miss Farrell teaches the ballet class since Okonjo retired."),
    ],
)
def test_another_name_of_the_same_subject_links_possibly(before: str, after: str) -> None:
    [link] = judge(said("new", after, 40, 0.6), [said("old", before, 0, 1.0)])
    assert not link.firm and "a new name" in link.reason


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("We have a spaniel called Biscuit.", "We also adopted a lurcher, Dash, in March."),  # it says it adds
        ("I live in Stockbridge.", "My parents live in Dundee, near the river."),  # another person's
        ("My best friend Ellie lives in Bristol.", "My friend Marcus lives in Cardiff."),  # another friend, by name
        ("My mum lives in Kirkcaldy.", "Mum's sister Jean lives in Dunfermline."),  # a person's person
        ("My kids are Hana and Kenji.", "Hana does gymnastics and Kenji is into Lego."),  # one of the names listed
        ("I swim at the Commonwealth pool.", "I swim at the Commonwealth pool and at Warrender too."),  # both said
        ("The quiz night is at the Crown on Friday.", "Met Jonas at the Anchor for lunch."),  # nothing shared
    ],
)
def test_what_adds_or_is_another_thing_links_nothing(before: str, after: str) -> None:
    assert judge(said("new", after, 40, 0.6), [said("old", before, 0, 1.0)]) == []


def test_a_name_far_off_in_meaning_links_nothing() -> None:
    before, after = "My physio is Dr Mensah at the Eastgate clinic.", "Dr Varga is my physio at Eastgate."
    assert judge(said("new", after, 40, 0.3), [said("old", before, 0, 1.0)]) == []
