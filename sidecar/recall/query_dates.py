"""When a query is about: a date window read from its words, relative to `now` (pure).

"in May 2023", "on 7 May 2023", "in 2022" are absolute; "yesterday", "last week", "last May",
"two weeks ago", "3 days ago" count back from `now` (the request's clock, or the conversation's
date when the caller gives it). Dates are parsed with python-dateutil; a query without a date
has no window, and then time changes nothing in the ranking.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

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


def _month_number(word: str) -> int:
    word = word.casefold()[:3]
    return next(i for i, name in enumerate(MONTHS, start=1) if name.startswith(word))


def time_window(query: str, now: datetime) -> Window | None:
    """The first date window the query names, or None."""
    day = _day(now)
    if match := _DAY_MONTH_YEAR.search(query):
        try:
            at = date_parser.parse(match.group(1), default=day.replace(day=1))
        except (ValueError, OverflowError):
            at = None
        if at is not None:
            at = at.replace(tzinfo=now.tzinfo)
            return Window(at, at + timedelta(days=1), match.group(0))
    if match := _MONTH_YEAR.search(query):
        start = day.replace(year=int(match.group(2)), month=_month_number(match.group(1)), day=1)
        return Window(start, start + relativedelta(months=1), match.group(0))
    if match := _LAST_MONTH_NAME.search(query):
        month = _month_number(match.group(1))
        year = day.year if month < day.month else day.year - 1
        start = day.replace(year=year, month=month, day=1)
        return Window(start, start + relativedelta(months=1), match.group(0))
    if match := _AGO.search(query):
        count = _NUMBERS.get(match.group(1).casefold()) or int(match.group(1))
        unit = match.group(2).casefold()
        back = relativedelta(**{f"{unit}s": count})
        step = relativedelta(**{f"{unit}s": 1})
        centre = day - back
        return Window(centre - step, centre + step + timedelta(days=1), match.group(0))
    if match := _LAST_UNIT.search(query):
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
    if match := _YEAR.search(query):
        start = day.replace(year=int(match.group(1)), month=1, day=1)
        return Window(start, start + relativedelta(years=1), match.group(0))
    return None


def _day(now: datetime) -> datetime:
    return now.replace(hour=0, minute=0, second=0, microsecond=0)
