"""Update shapes read by sentence structure (issue 24.1, updates that generalise): a habit said over
with "used to", an option turned down or dropped, a subject said to be off or on hold, a time span
"x-free", a question that announces ("did I tell you ...?") or doubts one's own words ("did I say
...?"), and the employers a start names ("ended up at", "in-house at", "X took me on")."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from beliefs.statements import UpdateKind
from reading.held_slots import held_slots
from reading.statement_shape import read_shape
from reading.subject import statement_of


@pytest.mark.parametrize(
    ("text", "ended"),
    [
        ("I used to play five-a-side but it's padel on Thursdays now.", ("play", "five-a-sid")),
        ("We turned down Bramley, he's going to Little Acorns.", ("bramley",)),
        ("Dropped the Italian. I've been doing Japanese since August.", ("italian",)),
        ("Cornwall's off, too pricey.", ("cornwall",)),
        ("Kitchen reno is on hold indefinitely, the builder went bust.", ("kitchen",)),
        ("Six months smoke-free today!", ("smok",)),
        ("I finished my last term at Kingsmead and I start at Larchfield in September.", ("kingsmead",)),
        ("My first office job since leaving the council.", ("council",)),
        ("Cut Disney+ to save money, Netflix stays.", ("disney",)),
    ],
)
def test_a_cessation_by_structure_names_what_is_over(text: str, ended: tuple[str, ...]) -> None:
    shape = read_shape(text)
    assert shape is not None and shape.ends and ended in shape.replaced, shape


@pytest.mark.parametrize(
    "text",
    [
        "I'm used to the cold by now.",
        "I dropped the kids off at school.",
        "I'm off to Paris tomorrow.",
        "I cut my finger chopping onions.",
        "Northgate offered me a team lead job and I turned it down.",
        "Did you say the museum is closed?",
    ],
)
def test_look_alikes_end_nothing(text: str) -> None:
    shape = read_shape(text)
    assert shape is None or not shape.ends, shape


def test_a_question_that_announces_is_read_as_said() -> None:
    shape = read_shape("Did I tell you I moved over to the Cathedral chamber choir? Way more demanding.")
    assert shape is not None and shape.explicit and shape.kind is UpdateKind.CHANGE
    assert read_shape("Did I tell you about the choir?") is None


def test_a_question_doubting_ones_own_words_is_a_correction_of_them() -> None:
    shape = read_shape("Did I say 7:30? It's 8:15, they moved us.")
    assert shape is not None and shape.kind is UpdateKind.CORRECTION and ("7", "30") in shape.replaced


@pytest.mark.parametrize("text", ["I miscounted, it's 20 coming.", "Brain fart: my brother lives in Linz."])
def test_an_admitted_slip_is_a_correction(text: str) -> None:
    shape = read_shape(text)
    assert shape is not None and shape.kind is UpdateKind.CORRECTION


@pytest.mark.parametrize(
    ("text", "slot"),
    [
        ("After six months of interviews I ended up at Sunfield Energy, in their finance team.", ("employer", "Sunfield Energy")),
        ("Went in-house at Coldwater Breweries, no more billable hours.", ("employer", "Coldwater Breweries")),
        ("The Ravel contract ended in May and Ostara Games took me on full-time.", ("employer", "Ostara Games")),
        ("I do the accounts at Pellow Print, small family business.", ("activity:do", "Pellow Print")),
    ],
)
def test_more_starts_name_the_users_employer(text: str, slot: tuple[str, str]) -> None:
    assert slot in held_slots(text)


@pytest.mark.parametrize("text", ["I ended up at the pub with Sam.", "Tom said Acme took me on.", "I do yoga at home."])
def test_no_employer_where_none_is_said(text: str) -> None:
    assert not [s for s in held_slots(text) if s[0] == "employer"]


def test_whose_thing_a_statement_speaks_of() -> None:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    assert statement_of("a", "episode", "My mum's birthday is 3 April.", at, None, None).owners == {"mum"}
    assert statement_of("b", "episode", "Ellie's school is Greenfield.", at, None, None).owners == {"ellie"}
    assert statement_of("c", "episode", "My birthday is 3 April.", at, None, None).owners == frozenset()
