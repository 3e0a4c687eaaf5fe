"""A state said for a bounded period lapses when the period is over (`reading.period`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from reading.period import lapsed, period_end

SAID = datetime(2026, 3, 2, 10, tzinfo=UTC)  # a Monday
LATER = SAID + timedelta(days=120)


@pytest.mark.parametrize(
    "text",
    [
        "This week I'm working from our Berlin office.",
        "I'm on antibiotics until Friday for a chest infection.",
        "User is on crutches for the next two weeks after spraining their ankle.",
        "My in-laws are staying with us this month, so the spare room is taken.",
        "Today I'm working from the café, the wifi at home is down.",
        "User is working from the café on Rue Oberkampf on 2026-03-02.",
        "User's in-laws are staying with us in March 2026.",
    ],
)
def test_a_bounded_present_state_lapses_after_its_period(text: str) -> None:
    assert lapsed(text, SAID, LATER) is not None
    assert lapsed(text, SAID, SAID + timedelta(hours=1)) is None  # still within its period


@pytest.mark.parametrize(
    "text",
    [
        "I live in Manchester with my partner.",  # no period: a standing fact
        "I ran the half marathon in Cardiff today.",  # an event told in the past stays true of its day
        "I live in Leeds. This week I'm in Berlin.",  # one sentence still holds: the quote does
        "I'm paid 52k at the moment.",  # current, with no end said
        "We're staying at the Hotel Alcazar for a week in May.",  # a length, not a period from now
        "The landlord put it up, we're paying 1,140 from this month.",  # the period opens the state
        "Starting today I'm off dairy for good.",
        "As of this week we're on the new broadband deal.",
    ],
)
def test_standing_facts_and_past_events_never_lapse(text: str) -> None:
    assert lapsed(text, SAID, LATER) is None


def test_a_period_that_opens_a_state_does_not_bound_it_but_one_that_ends_it_does() -> None:
    assert period_end("We're paying 1,140 from this month.", SAID) is None
    assert period_end("I'm at my sister's until the end of this month.", SAID) is not None
    assert period_end("From today I'm cycling to work, this week I'm in Berlin though.", SAID) is not None


def test_the_period_named_is_resolved_against_when_it_was_said() -> None:
    assert period_end("This week I'm in Berlin.", SAID) == datetime(2026, 3, 9, tzinfo=UTC)
    assert period_end("I'm in Berlin.", SAID) is None
