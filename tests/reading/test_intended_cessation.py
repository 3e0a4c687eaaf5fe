"""A cessation's verb governed by an intention, plan, wish or possibility ends nothing yet
(`reading.statement_shape`): "I'm going to quit X" leaves X current. Phrasings written for this test,
none from an evaluation set."""

from __future__ import annotations

import pytest

from beliefs.statements import UpdateKind
from reading.statement_shape import read_shape


@pytest.mark.parametrize(
    "text",
    [
        "I'm going to quit Dorrance Labs.",
        "I'm gonna quit the Harrowgate choir.",
        "I'll quit Pellmore in the spring.",
        "I'll probably quit the five-a-side team.",
        "I'm thinking of quitting Brightwater.",
        "Planning on cancelling the Zestbox delivery.",
        "I'm about to hand in my notice at Quillon.",
        "I'm going to be handing in my notice at Ravensby.",
        "I've decided to quit Tollard & Sons.",  # a decision: the quitting is still to come
        "I want to quit the Saturday league.",
        "I hope to be done with Kessler Audit by June.",
        "I need to cancel my Fitzone membership.",
    ],
)
def test_an_intended_cessation_ends_nothing(text: str) -> None:
    shape = read_shape(text)
    assert shape is None or not shape.ends, shape


@pytest.mark.parametrize(
    "text",
    [
        "I quit Dorrance Labs last week.",
        "I've handed in my notice at Quillon.",
        "We cancelled the Zestbox delivery.",
        "I'm done with Kessler Audit.",
    ],
)
def test_the_same_cessation_said_as_done_still_ends_it(text: str) -> None:
    shape = read_shape(text)
    assert shape is not None and shape.kind is UpdateKind.CESSATION and shape.ends


def test_an_intention_in_one_clause_leaves_a_done_cessation_in_another() -> None:
    shape = read_shape("I'm about to quit the band, and I've stopped the climbing wall too.")
    assert shape is not None and shape.ends
    assert ("band",) not in shape.replaced


def test_a_future_change_of_plan_keeps_its_cue() -> None:
    """A plan changed is the new plan: only cessations wait for the deed."""
    shape = read_shape("We're going to move the barbecue to Sunday instead.")
    assert shape is not None and shape.kind is UpdateKind.CHANGE
