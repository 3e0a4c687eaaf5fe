"""Update shapes read by sentence structure, fourth pass (issue 24.1): "<x> is history" and a verb
that puts its object away ("shelved the extension", "knocked the class on the head", "binned off the
box") end what they name; "new plan" and "gone with" change; a statement before a trailing question,
a clause outside a hedge and a clause without "still" are read as asserted; a work relation of the
user's own at a named organisation ("my new boss at X", "my probation at X") names an employer."""

from __future__ import annotations

import pytest

from beliefs.statements import UpdateKind
from reading.held_slots import held_slots
from reading.statement_shape import read_shape


@pytest.mark.parametrize(
    ("text", "ended"),
    [
        ("the 6.12 is history, i get the 8.05 now", ("6.12",)),
        ("The swimming lessons are history, Tom hated them.", ("swimm",)),
        ("we've shelved the loft, maybe next year", ("loft",)),
        ("I've knocked the Spanish course on the head, no time.", ("spanish",)),
    ],
)
def test_a_cessation_names_what_it_ends(text: str, ended: tuple[str, ...]) -> None:
    shape = read_shape(text)
    assert shape is not None and shape.kind is UpdateKind.CESSATION and shape.ends
    assert ended in shape.replaced


def test_a_verb_putting_away_ends_its_object_not_the_clause_before() -> None:
    shape = read_shape("long story short we've shelved the conservatory")
    assert shape is not None and ("conservatory",) in shape.replaced and ("long",) not in shape.replaced


@pytest.mark.parametrize(
    "text",
    [
        "ok so new plan, it's the Black Horse instead, still 7",  # "still" holds only in its clause
        "we've gone with the blue sofa after all",
        "since we moved to Hove the commute's awful, do you think I should get a bike?",  # question after
    ],
)
def test_a_change_is_read_around_other_clauses(text: str) -> None:
    shape = read_shape(text)
    assert shape is not None and shape.kind is UpdateKind.CHANGE and shape.explicit


@pytest.mark.parametrize(
    "text",
    [
        "I still live in Leeds.",
        "is the party still on, do you think?",
        "I think I might quit, not sure",
        "if I were rich, I'd quit my job",
        "I won't knock the piano on the head just yet",
    ],
)
def test_no_shape_where_nothing_is_asserted_over(text: str) -> None:
    assert read_shape(text) is None


@pytest.mark.parametrize(
    ("text", "employer"),
    [
        ("my new boss at Ferris & Lowe keeps booking 8am calls, how do I push back?", "Ferris & Lowe"),
        ("Can you help with an email, my probation at Hollins Vets ends next month", "Hollins Vets"),
        ("Our colleagues at Dunmore Bank are lovely", "Dunmore Bank"),
    ],
)
def test_a_work_relation_of_ones_own_names_the_employer(text: str, employer: str) -> None:
    assert ("employer", employer) in held_slots(text)


@pytest.mark.parametrize("text", ["my sister's boss at Tesco is mean", "I complained to the manager at Tesco"])
def test_someone_elses_work_relation_names_no_employer(text: str) -> None:
    assert not [slot for slot in held_slots(text) if slot[0] == "employer"]


def test_a_place_said_shut_ends_the_plan_there() -> None:
    shape = read_shape("new plan, the Crown's shut for a private do so it's the Olive Tree instead")
    assert shape is not None and shape.ends and ("crown",) in shape.replaced


def test_a_place_closed_on_a_weekday_is_no_cessation() -> None:
    shape = read_shape("The library is closed on Mondays.")
    assert shape is None or not shape.ends


@pytest.mark.parametrize(
    "text",
    ["I took voluntary redundancy from Stanmore in the spring.", "I was made redundant from Stanmore in May."],
)
def test_redundancy_ends_the_employer_it_names(text: str) -> None:
    shape = read_shape(text)
    assert shape is not None and shape.kind is UpdateKind.CESSATION and ("stanmore",) in shape.replaced


def test_a_mover_in_a_subordinate_clause_is_the_user() -> None:
    text = "parking's been a nightmare since we moved to Didsbury in october"
    assert ("place", "Didsbury") in held_slots(text)
    assert not held_slots("Tom's sister moved to Didsbury")
