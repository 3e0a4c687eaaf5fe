"""How recall weighs its signals: a frozen model with named presets.

Presets are shared and never mutated; a per-request variant is `config.tuned(...)` (a validated
`model_copy(update=...)`). Weights are relative: the blend divides by their sum.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from beliefs.confidence import CONFIDENCE_FLOOR
from sidecar.recall.errors import UnknownPresetError


class RecallConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = "balanced"
    # the blend of recall_score
    relevance_weight: float = Field(default=0.5, ge=0.0)
    confidence_weight: float = Field(default=0.15, ge=0.0)
    importance_weight: float = Field(default=0.25, ge=0.0)
    recency_weight: float = Field(default=0.1, ge=0.0)
    recency_scale: float = Field(
        default=1.0, gt=0.0, description="multiplies each category's half-life in recency (< 1: fresher wins)"
    )
    # candidates: relevance = the weighted mean of cosine and the normalised keyword score
    dense_weight: float = Field(default=1.0, ge=0.0)
    keyword_weight: float = Field(default=0.3, ge=0.0)
    oversample: int = Field(default=4, ge=1, description="candidates fetched per returned memory")
    min_candidates: int = Field(default=32, ge=1)
    topic_oversample: int = Field(
        default=2, ge=1, description="candidates multiplied when the request's topic narrows them later"
    )
    min_similarity: float = Field(
        default=0.15, ge=-1.0, le=1.0,
        description="a candidate whose cosine to the query is below this is not relevant (measured: "
        "bench/recall_floor.py); importance never lifts one over it",
    )
    keyword_min_similarity: float = Field(
        default=0.0, ge=-1.0, le=1.0,
        description="the floor of a candidate the keyword search found: shared words, but a cosine below "
        "this, are not relevance (measured: bench/recall_floor.py)",
    )
    impersonal_min_similarity: float = Field(
        default=0.30, ge=-1.0, le=1.0,
        description="the floor of every candidate of a query that speaks of no one of the user's (no first-person "
        "word, no name the user's memories hold: `reference.speaks_of_user`) whose cosine is known; a shared word "
        "or a link does not lower it (measured: bench/recall_floor.py)",
    )
    asked_min_similarity: float = Field(
        default=0.40, ge=-1.0, le=1.0,
        description="the cosine at which a special-category belief or quote is what the question asks about, so it "
        "bears on the request whatever domains its words place it in (\"What's my postcode?\", \"my GP wants to "
        "prescribe amoxicillin\" and a penicillin allergy); no sensitive fact a must-not keeps out reaches it "
        "(measured: bench/recall_floor.py --sensitive)",
    )
    carry_quotes_saying_more: bool = Field(
        default=False,
        description="carry a quote on the belief drawn from its turn even when the turn says more, unless what it "
        "says more is needed (`carried_quotes`); off: only a quote that says nothing more is carried (on, the dev "
        "recall scenarios spend fewer tokens on duplicates but lose recalls whose answer is only in the turn, and "
        "LoCoMo's temporal evidence drops: docs/benchmarks.md)",
    )
    metadata_weight: float = Field(
        default=0.02, ge=0.0, le=0.5,
        description="relevance added per query term a belief's entity, attribute or topic names (at most two)",
    )
    # episodes: the turns as said, ranked beside the beliefs with the same blend
    episodes_enabled: bool = Field(default=True, description="recall episodes beside the beliefs")
    episode_half_life_days: float = Field(default=365.0, gt=0.0, description="recency half-life of an episode")
    episode_importance: float = Field(
        default=0.45, ge=0.0, le=1.0,
        description="importance of every episode in the ranking (the beliefs a turn produced compete with their own)",
    )
    episode_keyword_weight: float = Field(
        default=1.0, ge=0.0, description="keyword_weight for episodes (raw turns: words matter more)"
    )
    person_weight: float = Field(default=0.05, ge=0.0, description="relevance added to a turn said by a speaker the query names")
    time_weight: float = Field(default=0.15, ge=0.0, description="relevance added when said within the query's dates")
    superseded_episode_factor: float = Field(
        default=0.5, ge=0.0, le=1.0, description="score multiplier of an episode whose belief is no longer current"
    )
    # policy
    confidence_floor: float = Field(default=CONFIDENCE_FLOOR, ge=0.0, le=1.0)
    profile_limit: int = Field(default=5, ge=0)
    pinned_limit: int = Field(default=200, ge=1, description="profile facts and constraints read per recall")
    contested_limit: int = Field(default=20, ge=1, description="open contested slots reported per recall")

    @model_validator(mode="after")
    def _some_weight(self) -> RecallConfig:
        if self.relevance_weight + self.confidence_weight + self.importance_weight + self.recency_weight <= 0:
            raise ValueError("at least one recall_score weight must be positive")
        if self.dense_weight + self.keyword_weight <= 0:
            raise ValueError("at least one of dense_weight and keyword_weight must be positive")
        return self

    def candidate_limit(self, limit: int, narrowed: bool = False) -> int:
        """How many candidates each source is asked for when `limit` memories may be returned;
        `narrowed`: a topic will cut some of them after the race (`policy.outside_topic`)."""
        fetch = max(self.min_candidates, self.oversample * limit)
        return fetch * self.topic_oversample if narrowed else fetch

    def tuned(self, **changes: Any) -> RecallConfig:
        """A validated copy with `changes`; this config (maybe a shared preset) is left as it is."""
        return type(self).model_validate(self.model_copy(update=changes).model_dump())


@functools.lru_cache(maxsize=64)
def episode_fusion(config: RecallConfig) -> RecallConfig:
    """`config` for fusing episode candidates: its `keyword_weight` is `episode_keyword_weight`
    (remembered per config: a frozen config's copy never changes)."""
    return config.tuned(keyword_weight=config.episode_keyword_weight)


BALANCED = RecallConfig()
PRECISE = RecallConfig(
    name="precise",
    relevance_weight=0.75,
    confidence_weight=0.15,
    importance_weight=0.1,
    recency_weight=0.0,
    min_similarity=0.3,
    profile_limit=3,
)
RECENT = RecallConfig(
    name="recent",
    relevance_weight=0.45,
    confidence_weight=0.15,
    importance_weight=0.1,
    recency_weight=0.3,
    recency_scale=0.25,
)

PRESETS: Mapping[str, RecallConfig] = MappingProxyType({c.name: c for c in (BALANCED, PRECISE, RECENT)})


def preset(name: str) -> RecallConfig:
    try:
        return PRESETS[name]
    except KeyError:
        raise UnknownPresetError(f"no recall preset {name!r}; one of: {', '.join(PRESETS)}") from None
