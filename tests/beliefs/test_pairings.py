"""Two things trade their values (`beliefs.pairings`): the same values, another pairing, under an
explicit change, make the earlier statement possibly stale; the same pairing again does not."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from beliefs.pairings import repaired
from beliefs.supersession import judge
from reading.statement_shape import read_shape
from reading.subject import statement_of

T0 = datetime(2026, 3, 1, tzinfo=UTC)


def said(item_id: str, text: str, days: int):
    return statement_of(item_id, "episode", text, T0 + timedelta(days=days), None, [1.0, 0.0], read_shape(text))


BEFORE = "Piano is on Monday and swimming on Wednesday."


def test_values_traded_between_two_things_is_a_repairing() -> None:
    after = said("new", "We swapped them round: swimming is on Monday and piano on Wednesday.", 3)
    assert repaired(after, said("old", BEFORE, 0)) in {"monday", "wednesday"}
    [link] = judge(after, [said("old", BEFORE, 0)])
    assert not link.firm


def test_the_same_pairing_said_again_is_none() -> None:
    assert repaired(said("new", "Piano is still on Monday and swimming on Wednesday.", 3), said("old", BEFORE, 0)) is None


def test_a_plain_restatement_in_another_order_is_no_update() -> None:
    """Without a cue the same values in another order are as often the same facts again."""
    plain = said("new", "Swimming's on Wednesday, piano on Monday.", 3)
    assert judge(plain, [said("old", BEFORE, 0)]) == []
