"""A street address is a number and the street's own words, not "14 at the Grange Road" (a plot
number before a preposition); a finance word naming a trade ("a mortgage adviser") is no finance of
the user's."""

from __future__ import annotations

import pytest

from beliefs.records import Sensitivity
from reading.sensitivity import sensitivity_of


@pytest.mark.parametrize("text", ["I live at 61 Quarry Road", "we're at 12 elm road now", "3 Harbour View Court is ours"])
def test_a_street_address_is_location(text: str) -> None:
    assert sensitivity_of(None, None, text) is Sensitivity.LOCATION


def test_a_number_before_a_preposition_is_no_street_address() -> None:
    assert sensitivity_of(None, None, "I've got plot 14 at the Grange Road allotments") is None


@pytest.mark.parametrize("text", ["I'm a mortgage adviser at Stanmore Bank", "I work on the loans team"])
def test_a_finance_trade_is_no_finance_of_the_users(text: str) -> None:
    assert sensitivity_of(None, None, text) is None


@pytest.mark.parametrize("text", ["our mortgage is 900 a month", "I have some savings put by", "I'm in debt"])
def test_the_users_money_stays_finances(text: str) -> None:
    assert sensitivity_of(None, None, text) is Sensitivity.FINANCES


@pytest.mark.parametrize("text", ["My run to the lake is 5 km each way", "the school is 2 miles one way", "it's 3 hours either way"])
def test_a_distance_each_way_is_no_street_address(text: str) -> None:
    assert sensitivity_of(None, None, text) is None


def test_a_street_named_way_stays_an_address() -> None:
    assert sensitivity_of(None, None, "we're at 27 Mill Way") is Sensitivity.LOCATION
