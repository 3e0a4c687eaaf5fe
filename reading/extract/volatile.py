"""Volatile statements: "I'm in Lisbon this week", "I prefer light mode today".

A state said for a period ends with it: the claim carries `expires_at` (the end of the period the
sentence names, else a day) and a half-life as short as the period, so it sits beside the standing
belief until it expires instead of superseding it. Events ("I went to a concert today") are not
volatile: they stay true of the past.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from beliefs.records import MemoryType
from reading.extract.relative_dates import TimeMention

#: A state with no stated period ("right now", "for now") lasts this long.
DEFAULT_VOLATILE = timedelta(days=1)
#: A location with no stated period ("I'm in Tokyo") lasts this long.
DEFAULT_LOCATION = timedelta(days=7)

_MARK = re.compile(
    r"(?i:\b(?:today|tonight|this (?:morning|afternoon|evening|week|weekend|month)|right now|for now|just for now|"
    r"at the moment|for the moment|for the time being|for this (?:session|conversation|chat)|temporarily|"
    r"for a (?:few days|couple of days|while)|until (?:tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday|next week))\b)"
)
#: Attributes that describe a state that can hold only for a while.
STATE_ATTRIBUTES = frozenset({"located_in", "diet", "communication_style", "response_format", "measurement_units",
                              "preferred_language", "preferred_theme", "preferred_meeting_time", "prefers", "likes",
                              "preferred_editor", "preferred_programming_language", "preferred_test_framework"})  # fmt: skip
_ALWAYS_VOLATILE = frozenset({"located_in"})


def volatile_mark(sentence: str) -> bool:
    return _MARK.search(sentence) is not None


def is_volatile(attribute: str | None, memory_type: MemoryType, sentence: str) -> bool:
    """Whether this claim, said in this sentence, holds only for a while."""
    if attribute in _ALWAYS_VOLATILE:
        return True
    if attribute not in STATE_ATTRIBUTES and not (attribute is None and memory_type is MemoryType.PREFERENCE):
        return False
    return volatile_mark(sentence)


def volatile_end(attribute: str | None, mentions: list[TimeMention], said_at: datetime) -> datetime:
    """When a volatile claim expires: the end of the period named, else a default span."""
    current = [mention for mention in mentions if mention.end > said_at]
    if current:
        return current[0].end
    return said_at + (DEFAULT_LOCATION if attribute in _ALWAYS_VOLATILE else DEFAULT_VOLATILE)
