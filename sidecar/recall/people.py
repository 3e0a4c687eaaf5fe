"""Who a query is about: the speakers it names (pure).

A speaker is named when the query holds their name as a whole word (any case), or the first word of
a multi-word name. The names come from the candidates' own `speaker` fields, so nothing is keyed
to a list of names: a query naming a speaker prefers that speaker's turns, and text about them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")


def _words(text: str) -> set[str]:
    words = {w.casefold() for w in _WORD.findall(text)}
    return words | {w.split("'")[0].split("’")[0] for w in words}  # "Caroline's" names Caroline


def named_speakers(query: str, speakers: Iterable[str | None]) -> frozenset[str]:
    """The speakers (as written on the episodes) whose name the query contains."""
    words = _words(query)
    named = set()
    for speaker in {s for s in speakers if s}:
        parts = [p.casefold() for p in _WORD.findall(speaker)]
        if parts and (all(p in words for p in parts) or parts[0] in words):
            named.add(speaker)
    return frozenset(named)


def mentions(text: str, speakers: Iterable[str]) -> bool:
    """Whether `text` names any of `speakers` (first name or full name, whole word)."""
    words = _words(text)
    return any((parts := [p.casefold() for p in _WORD.findall(s)]) and parts[0] in words for s in speakers)
