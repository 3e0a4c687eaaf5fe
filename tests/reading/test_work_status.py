"""Work statuses as values of the employer slot (`reading.work_status`, through `reading.held_slots`):
self-employed or out of work, said by the user of themselves; a job said as an addition holds no slot.
Phrasings written for this test, none from an evaluation set."""

from __future__ import annotations

import pytest

from reading.held_slots import EMPLOYER, held_slots
from reading.work_status import NOT_WORKING, SELF_EMPLOYED, additive

STATUSES = [
    ("I went freelance in the spring.", SELF_EMPLOYED),
    ("Gone fully freelance as of this month, wish me luck.", SELF_EMPLOYED),
    ("I'm a freelance translator, mostly legal documents.", SELF_EMPLOYED),
    ("User is self-employed.", SELF_EMPLOYED),
    ("I'm self employed these days, plumbing mostly.", SELF_EMPLOYED),
    ("I work for myself now.", SELF_EMPLOYED),
    ("User works for themselves as a dog groomer.", SELF_EMPLOYED),
    ("I'm my own boss since January.", SELF_EMPLOYED),
    ("I set up on my own as a bookkeeper.", SELF_EMPLOYED),
    ("I've started my own consultancy.", SELF_EMPLOYED),
    ("I'm between jobs right now.", NOT_WORKING),
    ("I've been out of work since the factory shut.", NOT_WORKING),
    ("I'm unemployed at the moment.", NOT_WORKING),
    ("I retired from the railway in June.", NOT_WORKING),
    ("Retired last year, loving the garden.", NOT_WORKING),
    ("I'm a stay-at-home dad now.", NOT_WORKING),
]


@pytest.mark.parametrize(("text", "status"), STATUSES)
def test_a_work_status_the_user_asserts_is_a_value_of_the_employer_slot(text: str, status: str) -> None:
    assert (EMPLOYER, status) in held_slots(text)


@pytest.mark.parametrize(
    "text",
    [
        "My dad retired from the post office.",
        "My sister went freelance last year.",
        "She's self-employed, a hairdresser.",
        "If I went freelance I'd never take a holiday.",
        "I'm thinking of going freelance next year.",
        "Should I go self-employed?",
        "I'd love to be my own boss one day.",
        "Is it worth setting up on my own?",
        "I'm looking for a new job.",
        "I retired my old running shoes this week.",
    ],
)
def test_someone_else_s_status_a_wish_or_a_question_gives_none(text: str) -> None:
    assert [slot for slot in held_slots(text) if slot[0] == EMPLOYER] == []


@pytest.mark.parametrize(
    "text",
    [
        "I also tutor maths for Keystone Learning.",
        "I do bar shifts at the Crown & Anchor on the side.",
        "On top of the day job I write for Harbour Weekly.",
        "I also freelance at weekends.",
        "Alongside the nursing, I pick up extra shifts at Willowbank Care.",
        "I work at Tessle Foods too.",
    ],
)
def test_a_job_said_as_an_addition_holds_no_one_at_a_time_slot(text: str) -> None:
    assert held_slots(text) == []


def test_an_addition_is_read_in_its_own_clause_only() -> None:
    """ "also" in another clause does not make the new employer a side job."""
    text = "I've joined Marston Water, and we also moved flat."
    assert (EMPLOYER, "Marston Water") in held_slots(text)
    assert not additive(text, text.index("joined"), text.index(","))
