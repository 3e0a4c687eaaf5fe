"""Effective confidence and `recall_score`: pure functions of a memory, its relevance and `now`.

Stored confidence is never mutated by time; recall decays it by the age since the belief was last
confirmed, with a half-life per attribute (a name barely decays, "in Tokyo this week" does fast).
Recency uses the same per-category half-lives (scaled by the preset), counted from when the belief
became true: an old name is still fresh news, last week's location is not.
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from beliefs.attributes import DEFAULT_HALF_LIFE_BY_TYPE, attribute_spec
from beliefs.records import Memory
from sidecar.recall.config import RecallConfig

SECONDS_PER_DAY = 86_400.0


def age_days(memory: Memory, now: datetime) -> float:
    """Days since the memory was last confirmed, else since it was created; never negative."""
    anchor = memory.last_confirmed or memory.created_at
    return max(0.0, (now - anchor).total_seconds() / SECONDS_PER_DAY)


def half_life_days(memory: Memory) -> float:
    """The row's own half-life, else its attribute's, else its type's default."""
    if memory.half_life_days is not None and memory.half_life_days > 0:
        return memory.half_life_days
    spec = attribute_spec(memory.attribute)
    if spec is not None:
        return spec.half_life_days
    return DEFAULT_HALF_LIFE_BY_TYPE[memory.type]


def effective_confidence(memory: Memory, now: datetime) -> float:
    """confidence · 0.5^(age_days / half_life_days)."""
    return memory.confidence * 0.5 ** (age_days(memory, now) / half_life_days(memory))


def recency(memory: Memory, now: datetime, scale: float = 1.0) -> float:
    """1 for a memory that became true now, 0.5 after its category's half-life × `scale` days."""
    days = max(0.0, (now - memory.valid_from).total_seconds() / SECONDS_PER_DAY)
    return decay(days, half_life_days(memory) * scale)


def decay(days: float, half_life: float) -> float:
    """0.5^(days / half_life); 1 for anything in the future."""
    return 0.5 ** (max(0.0, days) / half_life)


def salience(memory: Memory) -> float:
    """Importance set at write time, times the decay job's score (1 until decay has run)."""
    decay = 1.0 if memory.decay_score is None else min(max(memory.decay_score, 0.0), 1.0)
    return memory.importance * decay


class Score(NamedTuple):
    relevance: float
    effective_confidence: float
    salience: float
    recency: float
    value: float  # recall_score, in [0, 1]


def recall_score(memory: Memory, relevance: float, now: datetime, config: RecallConfig) -> Score:
    """The weighted blend of relevance, effective confidence, importance × decay and recency."""
    parts = (
        min(max(relevance, 0.0), 1.0),
        effective_confidence(memory, now),
        salience(memory),
        recency(memory, now, config.recency_scale),
    )
    return blend(parts, config)


def blend(parts: tuple[float, float, float, float], config: RecallConfig) -> Score:
    """(relevance, effective confidence, salience, recency) → their weighted mean as a `Score`."""
    relevance, confidence, importance, fresh = parts
    weights = (config.relevance_weight, config.confidence_weight, config.importance_weight, config.recency_weight)
    # summed left to right from 0.0, as `sum` adds floats
    value = (
        0.0 + weights[0] * relevance + weights[1] * confidence + weights[2] * importance + weights[3] * fresh
    ) / (0.0 + weights[0] + weights[1] + weights[2] + weights[3])
    return Score(relevance, confidence, importance, fresh, value)
