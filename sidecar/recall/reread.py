"""What a quote states read alone, as the rules extractor reads a turn: the terms of its claims (pure).

A belief drawn from one turn is that turn's reading, often in other words ("Always give me
temperatures in Celsius." is read as "User wants metric units."). Whether a returned quote says its
own belief in full is then answered by reading the quote again, alone, at the time it was said, and
finding every term of the belief among the claims read: the same reader, the same statement. A
reading that needed another turn (a correction's subject said earlier) is not found in the quote
alone, so it never counts as said by it. Remembered per (text, time): the quotes of a user recur.
"""

from __future__ import annotations

import functools
from datetime import datetime

from beliefs.records import Role, Turn
from reading.extract.rules import RulesExtractor
from reading.subject import terms_of

_READER = RulesExtractor()


@functools.lru_cache(maxsize=4096)
def stated_terms(text: str, said_at: datetime) -> frozenset[str]:
    """The terms (`reading.subject.terms_of`) of every claim the rules read in `text`, said by the
    user at `said_at`, alone (a stored quote: already stripped and redacted)."""
    turn = Turn(turn_id="reread", tenant_id="reread", user_id="reread", role=Role.USER, text=text, ts=said_at)
    return frozenset().union(*(terms_of(claim.text)[0] for claim in _READER.read_cleaned(turn)))
