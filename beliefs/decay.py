"""Decay scoring: how fresh a memory still is, from its age and how often it was recalled. Pure.

Ebbinghaus' exponential forgetting curve, lifted towards 1.0 by retrieval: a memory recalled
`boost_cap` times never decays, one never recalled follows the bare curve. With the default
lambda of 0.02 per day the half-life is ln 2 / 0.02 ≈ 34.7 days. Recall multiplies importance by
the score, so a decayed memory ranks lower; it never disappears.

    raw   = exp(-lambda · age_days)
    boost = min(1, ln(1 + access_count) / ln(1 + boost_cap))
    score = raw + (1 - raw) · boost

Age runs from the later of `last_accessed` and `last_confirmed` (a restatement reinforces a
memory as a recall does), else from `created_at`, and is never negative (clock skew):
`beliefs.age.days_since_reinforced`; the SQL scan computes the same age in the database.
"""

from __future__ import annotations

import math
from datetime import datetime

import numpy as np

from beliefs.age import days_since_reinforced
from beliefs.errors import ConfigurationError
from beliefs.records import Memory

DEFAULT_LAMBDA = 0.02
DEFAULT_BOOST_CAP = 10.0

#: Decimals of the score mirrored into the vector payload: a coarse pre-filter needs no more, and
#: identical rounded scores are written to the index as one operation (and rarely change).
PAYLOAD_DECIMALS = 2

def check_parameters(lam: float, boost_cap: float) -> None:
    """Refuse parameters for which the formula means nothing (no decay, or a division by zero)."""
    if not math.isfinite(lam) or lam < 0:
        raise ConfigurationError(f"decay lambda must be a finite number >= 0, got {lam}")
    if not math.isfinite(boost_cap) or boost_cap <= 0:
        raise ConfigurationError(f"decay boost cap must be a finite number > 0, got {boost_cap}")


def decay_score(
    age_days: float, access_count: int, lam: float = DEFAULT_LAMBDA, boost_cap: float = DEFAULT_BOOST_CAP
) -> float:
    """The decay score in [0, 1] of one memory (the module docstring has the formula)."""
    check_parameters(lam, boost_cap)
    raw = math.exp(-lam * max(0.0, age_days))
    boost = min(1.0, math.log1p(max(0, access_count)) / math.log1p(boost_cap))
    return raw + (1.0 - raw) * boost


def decay_scores(
    age_days: np.ndarray,
    access_counts: np.ndarray,
    lam: float = DEFAULT_LAMBDA,
    boost_cap: float = DEFAULT_BOOST_CAP,
) -> np.ndarray:
    """`decay_score` over arrays: the batch job scores thousands of rows per call."""
    check_parameters(lam, boost_cap)
    ages = np.maximum(np.asarray(age_days, dtype=np.float64), 0.0)
    counts = np.maximum(np.asarray(access_counts, dtype=np.float64), 0.0)
    raw = np.exp(-lam * ages)
    boost = np.minimum(1.0, np.log1p(counts) / math.log1p(boost_cap))
    return raw + (1.0 - raw) * boost


def memory_decay_score(
    memory: Memory, now: datetime, lam: float = DEFAULT_LAMBDA, boost_cap: float = DEFAULT_BOOST_CAP
) -> float:
    """The score of one memory at `now`."""
    return decay_score(days_since_reinforced(memory, now), memory.access_count, lam, boost_cap)


def payload_decay_score(score: float | None) -> float | None:
    """The score as the vector payload carries it (rounded; None while never scored)."""
    return None if score is None else round(float(score), PAYLOAD_DECIMALS)
