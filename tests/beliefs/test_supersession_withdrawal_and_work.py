"""Links from a withdrawal of what was said and from new shapes of the employer slot
(`beliefs.supersession.judge` over statements read by `reading`): vectors chosen to place them near
or far in meaning. Phrasings written for this test, none from an evaluation set."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from math import acos, cos, sin

import pytest

from beliefs.supersession import judge
from reading.statement_shape import read_shape
from reading.subject import statement_of

T0 = datetime(2026, 3, 1, tzinfo=UTC)


def _older(text: str):
    return statement_of("old", "episode", text, T0, None, [1.0, 0.0])


def _newer(text: str, similarity: float):
    angle = acos(similarity)
    return statement_of("new", "episode", text, T0 + timedelta(days=20), None, [cos(angle), sin(angle)], read_shape(text))


def test_a_withdrawal_in_other_words_links_what_it_is_close_to_possibly() -> None:
    """ "forget the kayak" shares no word with "an inflatable canoe": its meaning says the subject."""
    [link] = judge(_newer("Forget the kayak, there's nowhere to keep it.", 0.55), [_older("We're getting an inflatable canoe for the lake.")])
    assert not link.firm and "withdrawn" in link.reason


def test_a_withdrawal_far_in_meaning_links_nothing() -> None:
    assert judge(_newer("Forget the kayak, there's nowhere to keep it.", 0.2), [_older("My sister lives in Hull.")]) == []


def test_a_withdrawal_naming_what_was_said_is_firm() -> None:
    [link] = judge(_newer("I take back what I said about Galway, we're staying put.", 0.5), [_older("We're moving to Galway in spring.")])
    assert link.firm


@pytest.mark.parametrize(
    "after",
    [
        "I went freelance last month.",  # a work status fills the employer slot
        "I'm between jobs at the moment.",
        "These days I drive for Quickstep Couriers.",  # work done for another organisation
        "Four weeks at Tamsin Foods now, loving it.",  # time spent at another
        "Redfern Group hired me!",  # the new employer as the subject
    ],
)
def test_another_value_of_the_employer_slot_in_a_new_shape_links_the_old_employer(after: str) -> None:
    links = judge(_newer(after, 0.4), [_older("I'm a porter at Kingsway Hospital.")])
    assert [link.older_id for link in links] == ["old"]


@pytest.mark.parametrize(
    "after",
    [
        "I also tutor chemistry for Keystone Learning on Saturdays.",
        "On top of the hospital I do bar shifts at the Crown & Anchor.",
        "My brother went freelance last month.",
    ],
)
def test_a_side_job_or_someone_else_s_change_leaves_the_employer_alone(after: str) -> None:
    assert judge(_newer(after, 0.4), [_older("I'm a porter at Kingsway Hospital.")]) == []


def test_a_pastime_at_a_named_place_said_plainly_leaves_the_employer_alone() -> None:
    """An activity and an employer are one family only with an update's cue: "I shop at Lidl" is a pastime."""
    assert judge(_newer("I shop at Grainger's Market mostly.", 0.45), [_older("I'm a porter at Kingsway Hospital.")]) == []
    [link] = judge(_newer("I teach year 6 at Linwood Primary now.", 0.3), [_older("I'm a porter at Kingsway Hospital.")])
    assert not link.firm


def test_a_new_title_at_the_same_employer_links_the_old_title_possibly_and_not_another_employer_s() -> None:
    before = _older("I'm a junior buyer in the fresh produce team at Marsh Lane Foods.")
    [link] = judge(_newer("Since June I'm the senior buyer at Marsh Lane Foods.", 0.6), [before])
    assert not link.firm and "role" in link.reason
    other = _older("I'm a junior buyer at Pellow Print.")
    assert all("role" not in link.reason for link in judge(_newer("Since June I'm the senior buyer at Marsh Lane Foods.", 0.6), [other]))


def test_a_withdrawal_ties_only_what_it_withdraws() -> None:
    """ "Ignore the reviews, the cottage looks lovely" withdraws the reviews, not the cottage booking it
    shares a word with."""
    before = _older("I've booked the Tarn Howe cottage for August.")
    assert judge(_newer("Ignore the reviews, the cottage looks lovely in the photos.", 0.5), [before]) == []
    [link] = judge(_newer("Forget the cottage, the owner cancelled on us.", 0.5), [before])
    assert link.firm


def test_a_denial_with_only_an_implied_cue_may_end_what_it_denies() -> None:
    """ "I'm not coaching the under-11s this season": "this season" is only implied, the negation says
    the coaching is over (possibly); a denial of another subject links nothing."""
    from reading.statement_shape import denies

    text = "I'm not coaching the under-11s this season."
    shape = read_shape(text)
    assert shape is not None and not shape.explicit and denies(text)
    newer = statement_of("new", "episode", text, T0 + timedelta(days=20), None, [0.7, 0.71414], shape, denies=True)
    [link] = judge(newer, [_older("I coach the under-11s football team on Saturdays.")])
    assert not link.firm
    assert judge(newer, [_older("I play five-a-side on Thursdays.")]) == []
