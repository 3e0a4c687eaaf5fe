"""How old a belief is, counted from the moment each question needs, and how fresh that makes it. Pure.

Two clocks. Since the belief was last confirmed (else created): how far its confidence has
decayed (`beliefs.confidence.effective_confidence`, 0.5^(days / half-life)) and how recent it is
when recall ranks (`recency`, e^(-days / half-life), the design reading's recall score). Since it
was last reinforced, recalled or confirmed (else created): the forgetting curve of the decay job
(`beliefs.decay`). A fact said a year ago and confirmed yesterday is fresh on both clocks.
A half-life comes from the row, else its attribute, else its type: a name barely ages, "in Tokyo
this week" does fast.
"""

from __future__ import annotations

import math
from datetime import datetime

from beliefs.attributes import DEFAULT_HALF_LIFE_BY_TYPE, attribute_spec
from beliefs.records import Memory, as_utc

SECONDS_PER_DAY = 86_400.0


def days_since_confirmed(memory: Memory, now: datetime) -> float:
    """Days since the memory was last confirmed, else since it was created; never negative."""
    anchor = memory.last_confirmed or memory.created_at
    return max(0.0, (as_utc(now) - as_utc(anchor)).total_seconds() / SECONDS_PER_DAY)


def days_since_reinforced(memory: Memory, now: datetime) -> float:
    """Days since the memory was last recalled or confirmed, whichever is later (else since it was
    created); 0 for a timestamp in the future."""
    moments = [as_utc(m) for m in (memory.last_accessed, memory.last_confirmed) if m is not None]
    since = max(moments) if moments else as_utc(memory.created_at)
    return max(0.0, (as_utc(now) - since).total_seconds() / SECONDS_PER_DAY)


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


def recency_curve(days: float, half_life: float) -> float:
    """e^(-days / half_life): 1 now, 1/e after one half-life; 1 for anything in the future."""
    return math.exp(-max(0.0, days) / half_life)


def recency(memory: Memory, now: datetime, scale: float = 1.0) -> float:
    """e^(-days since last confirmed / (its category's half-life × `scale`)): 1 for a memory
    confirmed now; a year-old fact confirmed yesterday (half-life 365 days) scores 0.997."""
    return recency_curve(days_since_confirmed(memory, now), half_life_days(memory) * scale)
