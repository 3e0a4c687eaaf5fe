"""A one-off instruction said only in the query hides the stored default it departs from."""

from __future__ import annotations

import pytest

from beliefs.records import MemoryType
from sidecar.recall.live_intent import LiveIntent
from sidecar.recall.spoken_intent import one_off_instruction, says_a_default
from tests.sidecar.recall.seeding import mem


@pytest.mark.parametrize(
    ("query", "instructs"),
    [
        ("Order my morning coffee from the kiosk, this time make it decaf.", True),
        ("Order Thai for tonight, extra spicy for once.", True),
        ("Get the rye loaf instead.", True),
        ("What should I order this time?", False),  # a question asks, it does not instruct
        ("Order my usual from Luca's for 7pm.", False),  # the usual stands
    ],
)
def test_a_one_off_instruction_is_read_from_the_query(query: str, instructs: bool) -> None:
    assert (one_off_instruction(query) is not None) is instructs


def test_a_habit_it_speaks_of_yields_but_a_fact_and_a_caller_reading_do_not() -> None:
    query = "Order Thai for tonight, extra spicy for once."
    live = LiveIntent.of_request({}, query)
    assert live.overrides_quote("When I order Thai, I always get it mild.")
    assert live.overrides_quote("I had Thai in Bangkok last year.") is None  # not a default
    assert live.overrides(mem("t", "u", "User usually orders Thai food mild.", type=MemoryType.PREFERENCE))
    assert live.overrides(mem("t", "u", "User lives in Leeds.", type=MemoryType.FACT)) is None
    assert not LiveIntent.of_request({"size": "large"}, query).spoken  # the caller's live_intent wins


def test_defaults_are_habits_standing_choices_and_instructions() -> None:
    assert says_a_default("My standing order at the bakery is a sourdough loaf.")
    assert says_a_default("Send me reports as PDFs, I read them on my tablet.")
    assert not says_a_default("We went to the bakery on Saturday.")


def test_a_plain_amount_with_a_day_is_a_one_off() -> None:
    live = LiveIntent.of_request({}, "Make me a cup of tea, no sugar today, I'm cutting back.")
    assert live.overrides(mem("t", "u", "User takes their tea with milk and two sugars.", type=MemoryType.FACT))


def test_a_caller_instruction_reaches_a_fact_or_quote_that_states_a_default() -> None:
    live = LiveIntent.of_request({"signature": "Kwame"}, "Draft a note to Yaw.")
    assert live.overrides_quote("Sign my emails as Dr. Kwame Osei, please.")
    assert live.overrides_quote("I'm Kwame, by the way.") is None  # says no default
    drink = LiveIntent.of_request({"drink": "iced matcha"}, "Order me an iced matcha.")
    assert drink.overrides(mem("t", "u", "User usually drinks matcha hot.", type=MemoryType.FACT))
