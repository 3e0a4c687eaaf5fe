"""Relative dates resolve against the turn's time (a fixed Monday, 2023-05-08 13:56 UTC)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from reading.extract.relative_dates import Granularity, find_time_mentions, render_absolute

NOW = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # a Monday


@pytest.mark.parametrize(
    ("phrase", "start", "granularity", "future", "rendered"),
    [
        ("yesterday", date(2023, 5, 7), Granularity.DAY, False, "on 2023-05-07"),
        ("last night", date(2023, 5, 7), Granularity.DAY, False, "on 2023-05-07"),
        ("the day before yesterday", date(2023, 5, 6), Granularity.DAY, False, "on 2023-05-06"),
        ("today", date(2023, 5, 8), Granularity.DAY, False, "on 2023-05-08"),
        ("this morning", date(2023, 5, 8), Granularity.DAY, False, "on 2023-05-08"),
        ("tomorrow", date(2023, 5, 9), Granularity.DAY, True, "on 2023-05-09"),
        ("two days ago", date(2023, 5, 6), Granularity.DAY, False, "on 2023-05-06"),
        ("3 days ago", date(2023, 5, 5), Granularity.DAY, False, "on 2023-05-05"),
        ("a couple of days ago", date(2023, 5, 6), Granularity.DAY, False, "on 2023-05-06"),
        ("last Tuesday", date(2023, 5, 2), Granularity.DAY, False, "on 2023-05-02"),
        ("last Monday", date(2023, 5, 1), Granularity.DAY, False, "on 2023-05-01"),
        ("last Sunday", date(2023, 5, 7), Granularity.DAY, False, "on 2023-05-07"),
        ("next Friday", date(2023, 5, 12), Granularity.DAY, True, "on 2023-05-12"),
        ("this Friday", date(2023, 5, 12), Granularity.DAY, True, "on 2023-05-12"),
        ("last week", date(2023, 5, 1), Granularity.WEEK, False, "in the week of 2023-05-01"),
        ("a week ago", date(2023, 5, 1), Granularity.WEEK, False, "in the week of 2023-05-01"),
        ("this week", date(2023, 5, 8), Granularity.WEEK, False, "in the week of 2023-05-08"),
        ("next week", date(2023, 5, 15), Granularity.WEEK, True, "in the week of 2023-05-15"),
        ("this weekend", date(2023, 5, 13), Granularity.WEEKEND, True, "on the weekend of 2023-05-13"),
        ("last weekend", date(2023, 5, 6), Granularity.WEEKEND, False, "on the weekend of 2023-05-06"),
        ("this past weekend", date(2023, 5, 6), Granularity.WEEKEND, False, "on the weekend of 2023-05-06"),
        ("next month", date(2023, 6, 1), Granularity.MONTH, True, "in June 2023"),
        ("last month", date(2023, 4, 1), Granularity.MONTH, False, "in April 2023"),
        ("two months ago", date(2023, 3, 1), Granularity.MONTH, False, "in March 2023"),
        ("in two weeks", date(2023, 5, 22), Granularity.WEEK, True, "in the week of 2023-05-22"),
        ("last year", date(2022, 1, 1), Granularity.YEAR, False, "in 2022"),
        ("next year", date(2024, 1, 1), Granularity.YEAR, True, "in 2024"),
        ("5 years ago", date(2018, 1, 1), Granularity.YEAR, False, "in 2018"),
    ],
)
def test_phrases_resolve(
    phrase: str, start: date, granularity: Granularity, future: bool, rendered: str
) -> None:
    (mention,) = find_time_mentions(f"I did it {phrase}, really", NOW)
    assert mention.phrase.lower() == phrase.lower()
    assert mention.start.date() == start
    assert mention.granularity is granularity
    assert mention.is_future is future
    assert mention.rendered == rendered
    assert mention.start.tzinfo is UTC and mention.end > mention.start


def test_sunday_weekend_is_the_current_one() -> None:
    sunday = datetime(2023, 5, 14, 9, tzinfo=UTC)
    (mention,) = find_time_mentions("this weekend", sunday)
    assert mention.start.date() == date(2023, 5, 13)


def test_month_arithmetic_clamps_at_year_end() -> None:
    (mention,) = find_time_mentions("next month", datetime(2023, 12, 31, tzinfo=UTC))
    assert mention.start.date() == date(2024, 1, 1)


def test_naive_now_is_taken_as_utc() -> None:
    (mention,) = find_time_mentions("yesterday", datetime(2023, 5, 8))
    assert mention.start == datetime(2023, 5, 7, tzinfo=UTC)


@pytest.mark.parametrize(
    "text", ["I like the morning", "in the end", "This is it", "my last name", "next to me"]
)
def test_no_false_mentions(text: str) -> None:
    assert find_time_mentions(text, NOW) == []


def test_render_replaces_phrase_and_its_preposition() -> None:
    text = "Caroline went to a support group yesterday and on last Tuesday."
    mentions = find_time_mentions(text, NOW)
    assert (
        render_absolute(text, mentions) == "Caroline went to a support group on 2023-05-07 and on 2023-05-02."
    )
