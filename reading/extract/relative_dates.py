"""Resolve relative time phrases ("yesterday", "last Tuesday", "next month") against a turn's time.

A memory is read weeks later, when "yesterday" means nothing; the phrase is replaced by an
absolute date in the memory text and the date becomes the claim's `valid_from`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from enum import StrEnum

from dateutil.relativedelta import relativedelta


class Granularity(StrEnum):
    DAY = "day"
    WEEKEND = "weekend"
    WEEK = "week"
    MONTH = "month"
    YEAR = "year"


@dataclass(frozen=True)
class TimeMention:
    """One relative phrase, where it sits in the sentence and the period it names."""

    phrase: str
    span: tuple[int, int]
    start: datetime  # first instant of the period, UTC
    end: datetime  # first instant after the period
    granularity: Granularity
    is_future: bool

    @property
    def rendered(self) -> str:
        """The absolute form that replaces the phrase in a memory text."""
        day = self.start.date()
        if self.granularity is Granularity.DAY:
            return f"on {day.isoformat()}"
        if self.granularity is Granularity.WEEKEND:
            return f"on the weekend of {day.isoformat()}"
        if self.granularity is Granularity.WEEK:
            return f"in the week of {day.isoformat()}"
        if self.granularity is Granularity.MONTH:
            return f"in {self.start.strftime('%B %Y')}"
        return f"in {self.start.year}"


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "couple of": 2, "a couple of": 2,
    "few": 3, "a few": 3, "several": 3,
}  # fmt: skip
_UNIT = r"(?P<unit>day|week|month|year)s?"
_COUNT = r"(?P<count>\d{1,2}|a couple of|couple of|a few|few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten)"
_WEEKDAY = r"(?P<weekday>monday|tuesday|wednesday|thursday|friday|saturday|sunday)"

_PHRASE = re.compile(
    r"\b(?:"
    r"(?P<yesterday>the day before yesterday|yesterday|last night)"
    r"|(?P<today>today|tonight|this (?:morning|afternoon|evening))"
    r"|(?P<tomorrow>tomorrow)"
    rf"|{_COUNT} {_UNIT} ago"
    rf"|in {_COUNT.replace('count', 'fcount')} (?P<funit>day|week|month|year)s?\b"
    rf"|(?P<rel>last|this|next|this past|this coming) (?:(?P<period>weekend|week|month|year)|{_WEEKDAY})"
    r")\b",
    re.IGNORECASE,
)


def _midnight(moment: datetime) -> datetime:
    return datetime.combine(moment.date(), time.min, tzinfo=UTC)


def _day(start: datetime) -> tuple[datetime, datetime, Granularity]:
    return start, start + timedelta(days=1), Granularity.DAY


def _week_of(day: datetime) -> tuple[datetime, datetime, Granularity]:
    monday = day - timedelta(days=day.weekday())
    return monday, monday + timedelta(days=7), Granularity.WEEK


def _weekend_of(day: datetime) -> tuple[datetime, datetime, Granularity]:
    saturday = (
        day + timedelta(days=(5 - day.weekday()) % 7)
        if day.weekday() < 5
        else day - timedelta(days=day.weekday() - 5)
    )
    return saturday, saturday + timedelta(days=2), Granularity.WEEKEND


def _month_of(day: datetime) -> tuple[datetime, datetime, Granularity]:
    first = day.replace(day=1)
    return first, first + relativedelta(months=1), Granularity.MONTH


def _year_of(day: datetime) -> tuple[datetime, datetime, Granularity]:
    first = day.replace(month=1, day=1)
    return first, first + relativedelta(years=1), Granularity.YEAR


_OF_UNIT = {"day": _day, "week": _week_of, "month": _month_of, "year": _year_of, "weekend": _weekend_of}
_STEP = {
    "day": relativedelta(days=1),
    "week": relativedelta(weeks=1),
    "weekend": relativedelta(weeks=1),
    "month": relativedelta(months=1),
    "year": relativedelta(years=1),
}


def _count(word: str) -> int:
    word = word.lower()
    return int(word) if word.isdigit() else _NUMBERS.get(word, 1)


def _weekday_period(rel: str, weekday: str, today: datetime) -> tuple[datetime, datetime, Granularity, bool]:
    target = _WEEKDAYS.index(weekday.lower())
    if rel in ("last", "this past"):
        back = (today.weekday() - target) % 7 or 7
        return (*_day(today - timedelta(days=back)), False)
    ahead = (target - today.weekday()) % 7
    if rel == "next" and ahead == 0:
        ahead = 7
    return (*_day(today + timedelta(days=ahead)), ahead > 0)


def _resolve(match: re.Match[str], today: datetime) -> tuple[datetime, datetime, Granularity, bool]:
    groups = match.groupdict()
    if groups["yesterday"]:
        back = 2 if groups["yesterday"].lower().startswith("the day") else 1
        return (*_day(today - timedelta(days=back)), False)
    if groups["today"]:
        return (*_day(today), False)
    if groups["tomorrow"]:
        return (*_day(today + timedelta(days=1)), True)
    if groups["unit"]:
        unit = groups["unit"].lower()
        return (*_OF_UNIT[unit](today - _STEP[unit] * _count(groups["count"])), False)
    if groups["funit"]:
        unit = groups["funit"].lower()
        return (*_OF_UNIT[unit](today + _STEP[unit] * _count(groups["fcount"])), True)
    rel = groups["rel"].lower()
    if groups["weekday"]:
        return _weekday_period(rel, groups["weekday"], today)
    period = groups["period"].lower()
    if rel in ("last", "this past"):
        return (*_OF_UNIT[period](today - _STEP[period]), False)
    if rel == "next":
        return (*_OF_UNIT[period](today + _STEP[period]), True)
    start, end, granularity = _OF_UNIT[period](today)
    return start, end, granularity, start > today


def find_time_mentions(text: str, now: datetime) -> list[TimeMention]:
    """Every relative time phrase in the text, resolved against `now` (the turn's time)."""
    if not _has_time_word(text):
        return []
    today = _midnight(now.astimezone(UTC) if now.tzinfo else now.replace(tzinfo=UTC))
    mentions = []
    for match in _PHRASE.finditer(text):
        start, end, granularity, is_future = _resolve(match, today)
        mentions.append(TimeMention(match.group(0), match.span(), start, end, granularity, is_future))
    return mentions


_GATE = re.compile(r"yesterday|night|today|tonight|tomorrow|this |ago\b|in \w|last |next ", re.IGNORECASE)


def _has_time_word(text: str) -> bool:
    """A cheap pre-check so most sentences skip the full phrase regex."""
    return _GATE.search(text) is not None


def render_absolute(text: str, mentions: list[TimeMention]) -> str:
    """The text with each resolved phrase replaced by its absolute form."""
    for mention in mentions:
        text = re.sub(
            rf"\b(?:on |in |during )?{re.escape(mention.phrase)}\b", mention.rendered, text, count=1
        )
    return text
