"""`recall_score`: a pure function of a memory, its relevance and `now`.

The blend of relevance, effective confidence (`beliefs.confidence`: stored confidence decayed by the
age since the belief was last confirmed), importance × the decay job's score, and recency
(`beliefs.age`: e^(-days / half-life) with the same per-category half-lives, scaled by the preset,
counted from the last confirmation: a year-old fact confirmed yesterday is fresh, last week's
location is not).
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from beliefs.age import recency
from beliefs.confidence import effective_confidence
from beliefs.records import Memory
from sidecar.recall.config import RecallConfig


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
