"""An intention to end something supersedes nothing (`beliefs.supersession.judge` over statements read
by `reading`): the current job stays the job until the user says they left. Vectors place the two
statements close in meaning. Phrasings written for this test, none from an evaluation set."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from math import acos, cos, sin

import pytest

from beliefs.supersession import judge
from reading.statement_shape import read_shape
from reading.subject import statement_of

T0 = datetime(2026, 4, 2, tzinfo=UTC)


def _older(text: str):
    return statement_of("old", "episode", text, T0, None, [1.0, 0.0])


def _newer(text: str, similarity: float = 0.8):
    angle = acos(similarity)
    return statement_of("new", "episode", text, T0 + timedelta(days=9), None, [cos(angle), sin(angle)], read_shape(text))


@pytest.mark.parametrize(
    "after",
    ["I'm going to quit Marwick Freight.", "I'm about to hand in my notice at Marwick Freight.", "I've decided to quit Marwick Freight."],
)
def test_an_intended_cessation_leaves_the_current_job_current(after: str) -> None:
    links = judge(_newer(after), [_older("I work at Marwick Freight as a dispatcher.")])
    assert not any(link.firm for link in links), links


def test_a_done_cessation_still_supersedes_the_job() -> None:
    [link] = judge(_newer("I quit Marwick Freight on Friday."), [_older("I work at Marwick Freight as a dispatcher.")])
    assert link.firm
