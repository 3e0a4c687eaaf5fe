"""When a query is about: a date window read from its words, relative to `now` (pure).

"in May 2023", "on 7 May 2023", "in 2022" are absolute; "yesterday", "last week", "last May",
"two weeks ago", "3 days ago" count back from `now` (the request's clock, or the conversation's
date when the caller gives it). Dates are parsed with python-dateutil; a query without a date
has no window, and then time changes nothing in the ranking. A date outside the calendar (years 1
to 9999) is passed over and named (`DateReading.ignored`), never an error.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from dateutil import parser as date_parser
from dateutil.relativedelta import relativedelta

MONTHS = ("january february march april may june july august september october november december").split()
_MONTH = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "few": 3, "couple": 2}

_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}\s*,?\s+\d{{4}}|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\s*,?\s+\d{{4}})\b", re.I)
_MONTH_YEAR = re.compile(rf"\b({_MONTH})\s*,?\s+(\d{{4}})\b", re.I)
_YEAR = re.compile(r"\b(?:in|during|of)\s+((?:19|20)\d{2})\b", re.I)
_LAST_MONTH_NAME = re.compile(rf"\blast\s+({_MONTH})\b", re.I)
_AGO = re.compile(r"\b(\d+|a|an|one|two|three|four|five|six|few|couple)\s+(?:of\s+)?(day|week|month|year)s?\s+ago\b", re.I)
_LAST_UNIT = re.compile(r"\b(yesterday|last\s+(?:week|month|year|weekend))\b", re.I)


@dataclass(frozen=True)
class Window:
    start: datetime
    end: datetime  # exclusive
    said: str  # the words it was read from

    def holds(self, at: datetime) -> bool:
        return self.start <= at < self.end


@dataclass(frozen=True)
class DateReading:
    """The window the query names (or None), and the dates it names that no calendar holds."""

    window: Window | None
    ignored: tuple[str, ...] = ()  # e.g. "5000 years ago", or "yesterday" said on 1 January of year 1


def _month_number(word: str) -> int:
    word = word.casefold()[:3]
    return next(i for i, name in enumerate(MONTHS, start=1) if name.startswith(word))


def read_dates(query: str, now: datetime) -> DateReading:
    """The first date window the query names that the calendar (years 1 to 9999) holds.

    Any end user may type "5000 years ago", "in December 9999" or a day count with hundreds of
    digits, and a caller may anchor relative dates near year 1: such a date is not an error of
    the request, it is a date recall cannot place, so it is passed over (and named in `ignored`)
    and the next date the query names is read instead.
    """
    day = _day(now)
    ignored: list[str] = []
    for pattern, window_of in _READERS:
        for match in pattern.finditer(query):
            try:
                window = window_of(match, day, now)
                if window is not None:  # held in UTC too, as the store compares it
                    for bound in (window.start, window.end):  # a naive bound is UTC, as the store reads it
                        bound.replace(tzinfo=bound.tzinfo or UTC).astimezone(UTC)
            except (ValueError, OverflowError):  # out of the calendar: year 0, 10000, a C int overflow
                ignored.append(_shortened(match.group(0)))
                continue
            if window is not None:
                return DateReading(window, tuple(ignored))
    return DateReading(None, tuple(ignored))


def _day_month_year(match: re.Match[str], day: datetime, now: datetime) -> Window | None:
    try:
        at = date_parser.parse(match.group(1), default=day.replace(day=1))
    except (ValueError, OverflowError):  # "31 February 2023": the month-and-year reading takes it
        return None
    at = at.replace(tzinfo=now.tzinfo)
    return Window(at, at + timedelta(days=1), match.group(0))


def _month_year(match: re.Match[str], day: datetime, _now: datetime) -> Window:
    start = day.replace(year=int(match.group(2)), month=_month_number(match.group(1)), day=1)
    return Window(start, start + relativedelta(months=1), match.group(0))


def _last_month_name(match: re.Match[str], day: datetime, _now: datetime) -> Window:
    month = _month_number(match.group(1))
    year = day.year if month < day.month else day.year - 1
    start = day.replace(year=year, month=month, day=1)
    return Window(start, start + relativedelta(months=1), match.group(0))


def _ago(match: re.Match[str], day: datetime, _now: datetime) -> Window:
    count = _NUMBERS.get(match.group(1).casefold()) or int(match.group(1))
    unit = match.group(2).casefold()
    back = relativedelta(**{f"{unit}s": count})
    step = relativedelta(**{f"{unit}s": 1})
    centre = day - back
    return Window(centre - step, centre + step + timedelta(days=1), match.group(0))


def _last_unit(match: re.Match[str], day: datetime, _now: datetime) -> Window:
    words = match.group(1).casefold().split()
    if words == ["yesterday"]:
        return Window(day - timedelta(days=1), day, match.group(0))
    span = {"week": timedelta(days=7), "weekend": timedelta(days=4)}.get(words[-1])
    if span is not None:
        return Window(day - 2 * span, day, match.group(0))
    if words[-1] == "month":
        return Window(day - relativedelta(months=2), day, match.group(0))
    start = day.replace(year=day.year - 1, month=1, day=1)
    return Window(start, start + relativedelta(years=1), match.group(0))


def _year(match: re.Match[str], day: datetime, _now: datetime) -> Window:
    start = day.replace(year=int(match.group(1)), month=1, day=1)
    return Window(start, start + relativedelta(years=1), match.group(0))


#: The readings in the order they are tried: the most precise date first.
_READERS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str], datetime, datetime], Window | None]], ...] = (
    (_DAY_MONTH_YEAR, _day_month_year),
    (_MONTH_YEAR, _month_year),
    (_LAST_MONTH_NAME, _last_month_name),
    (_AGO, _ago),
    (_LAST_UNIT, _last_unit),
    (_YEAR, _year),
)


def _shortened(words: str, limit: int = 80) -> str:
    """What was said, at most `limit` characters (a day count may have thousands of digits)."""
    return words if len(words) <= limit else words[: limit - 1] + "…"


def _day(now: datetime) -> datetime:
    return now.replace(hour=0, minute=0, second=0, microsecond=0)
