"""Whether what a sentence says was said for a period that has passed ("This week I'm in Berlin",
"I'm on antibiotics until Friday", asked months later).

A present state said with a bounded period (today, this week, this month, until Friday, for the next
two weeks…) holds until the end of the period the sentence names (`find_time_mentions`, resolved
against when it was said), else for `DEFAULT_SPAN`; a period that opens the state ("we're paying 1,040 from
this month", "starting today I'm vegan", "as of this week I'm on nights") says when it starts, not when
it ends, and is no bound; a belief that renders the period as a date ("is
working from the café on 2026-05-10", "are staying with us in February 2026") until that day or month
ends. "At the moment", "for now", "right now" say a state is current, not when it ends: they never lapse. Events told
in the past tense ("I ran a half marathon today") stay true of their day and never lapse. Recall
reads it for a belief with no `expires_at` of its own and for a quote (`lapsed`). Pure.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from reading.extract.relative_dates import find_time_mentions
from reading.extract.text import sentence_spans

#: A bounded state with no period the dates reader resolves lasts this long after it was said.
DEFAULT_SPAN = timedelta(days=7)

#: A period with an end: "at the moment", "for now", "right now" say a state is current, not when it ends.
_BOUNDED = re.compile(
    r"(?i:\b(?:today|tonight|this (?:morning|afternoon|evening|week|weekend|month)|"
    r"until (?:tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday|next week|the end of \w+)|"
    r"for the (?:next|coming) (?:few|couple of|\w+) (?:days|weeks)|for this (?:session|conversation|chat))\b)"
)
#: Words before a period that make it the state's start: "from this month", "starting today", "as of this week".
_OPENS = re.compile(r"(?i:\b(?:from|starting(?: from)?|beginning|as (?:of|from)|effective(?: from)?|since)\s+$)")
#: The dated form a belief renders such a period in ("… on 2026-05-10", "… in February 2026").
_ON_DAY = re.compile(r"\bon (\d{4})-(\d{2})-(\d{2})\b")
_IN_MONTH = re.compile(
    r"(?i:\bin (january|february|march|april|may|june|july|august|september|october|november|december) (\d{4})\b)"
)
_MONTHS = ("january february march april may june july august september october november december").split()
#: A present state of the speaker (or of the user, as a belief renders it), not a past event.
_PRESENT_STATE = re.compile(
    r"(?i:\b(?:I'm|I’m|I am|we're|we’re|we are|user is|they're|they are|is|are|I've got|I have)\b)"
)
#: A state in progress said with a date ("User is working from the café … on 2026-05-10").
_IN_PROGRESS = re.compile(r"(?i:\b(?:is|are|am|I'm|I’m|we're|we’re)\s+(?:\w+\s+)?\w+ing\b|\b(?:is|are) (?:on|in|at|away)\b)")


def period_end(sentence: str, said_at: datetime) -> datetime | None:
    """When the state `sentence` says for a bounded period ends; None: not said for a period."""
    if not _PRESENT_STATE.search(sentence):
        return None
    if any(not _OPENS.search(sentence[: m.start()]) for m in _BOUNDED.finditer(sentence)):
        ahead = [m.end for m in find_time_mentions(sentence, said_at) if m.end > said_at]
        return max(ahead) if ahead else said_at + DEFAULT_SPAN
    if not _IN_PROGRESS.search(sentence):
        return None
    if day := _ON_DAY.search(sentence):
        return datetime(*map(int, day.groups()), tzinfo=UTC) + timedelta(days=1)
    if month := _IN_MONTH.search(sentence):
        number, year = _MONTHS.index(month.group(1).lower()) + 1, int(month.group(2))
        return datetime(year + number // 12, number % 12 + 1, 1, tzinfo=UTC)
    return None


def lapsed(text: str, said_at: datetime, now: datetime) -> datetime | None:
    """The end of the period `text` was said for, when every sentence of it stating something holds
    only for a period that ended before `now`; None when any of it still holds (or none is bounded)."""
    ends = []
    for left, right in sentence_spans(text):
        sentence = text[left:right].strip()
        if not sentence:
            continue
        end = period_end(sentence, said_at)
        if end is None or end > now:
            return None
        ends.append(end)
    return max(ends) if ends else None
