"""How old a belief is, counted from the moment each question needs, and how fresh that makes it. Pure.

Three clocks, one question each: since the belief was last confirmed (how far its confidence has
decayed, `beliefs.confidence.effective_confidence`), since it was last recalled (the forgetting
curve of the decay job, `beliefs.decay`), and since it became true (recency, when recall ranks).
A half-life comes from the row, else its attribute, else its type: a name barely ages, "in Tokyo
this week" does fast.
"""

from __future__ import annotations

from datetime import datetime

from beliefs.attributes import DEFAULT_HALF_LIFE_BY_TYPE, attribute_spec
from beliefs.records import Memory, as_utc

SECONDS_PER_DAY = 86_400.0


def days_since_confirmed(memory: Memory, now: datetime) -> float:
    """Days since the memory was last confirmed, else since it was created; never negative."""
    anchor = memory.last_confirmed or memory.created_at
    return max(0.0, (now - anchor).total_seconds() / SECONDS_PER_DAY)


def days_since_recalled(memory: Memory, now: datetime) -> float:
    """Days since the memory was last recalled (else created); 0 for a timestamp in the future."""
    since = memory.last_accessed or memory.created_at
    return max(0.0, (as_utc(now) - as_utc(since)).total_seconds() / SECONDS_PER_DAY)


def half_life_days(memory: Memory) -> float:
    """The row's own half-life, else its attribute's, else its type's default."""
    if memory.half_life_days is not None and memory.half_life_days > 0:
        return memory.half_life_days
    spec = attribute_spec(memory.attribute)
    if spec is not None:
        return spec.half_life_days
    return DEFAULT_HALF_LIFE_BY_TYPE[memory.type]


def halved(days: float, half_life: float) -> float:
    """0.5^(days / half_life); 1 for anything in the future."""
    return 0.5 ** (max(0.0, days) / half_life)


def recency(memory: Memory, now: datetime, scale: float = 1.0) -> float:
    """1 for a memory that became true now, 0.5 after its category's half-life × `scale` days."""
    days = max(0.0, (now - memory.valid_from).total_seconds() / SECONDS_PER_DAY)
    return halved(days, half_life_days(memory) * scale)
