"""The decay formula at fixed ages and access counts, its monotonicity, and the age helper."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from beliefs.age import days_since_reinforced
from beliefs.decay import (
    decay_score,
    decay_scores,
    memory_decay_score,
    payload_decay_score,
)
from beliefs.errors import ConfigurationError
from beliefs.records import Memory

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
HALF_LIFE = math.log(2) / 0.02  # 34.657... days


def memory(
    created_days_ago: float,
    accessed_days_ago: float | None = None,
    access_count: int = 0,
    confirmed_days_ago: float | None = None,
) -> Memory:
    created = NOW - timedelta(days=created_days_ago)
    return Memory(
        id="m",
        tenant_id="t",
        user_id="u",
        text="The user likes tea.",
        type="preference",
        topic="food",
        importance=0.5,
        confidence=0.9,
        created_at=created,
        valid_from=created,
        last_accessed=None if accessed_days_ago is None else NOW - timedelta(days=accessed_days_ago),
        access_count=access_count,
        last_confirmed=None if confirmed_days_ago is None else NOW - timedelta(days=confirmed_days_ago),
    )


@pytest.mark.parametrize(
    ("age", "accesses", "expected"),
    [
        (0.0, 0, 1.0),
        (0.0, 5, 1.0),
        (HALF_LIFE, 0, 0.5),
        (2 * HALF_LIFE, 0, 0.25),
        (34.66, 0, 0.49997),  # the seed's "~35-day half-life": 0.5 to four places
        (100.0, 0, math.exp(-2.0)),
        (365.0, 0, math.exp(-7.3)),
        (HALF_LIFE, 10, 1.0),  # boost_cap accesses: full protection
        (10_000.0, 10, 1.0),
        (10_000.0, 500, 1.0),  # beyond the cap: still exactly 1
        (HALF_LIFE, 1, 0.5 + 0.5 * math.log(2) / math.log(11)),
        (HALF_LIFE, 3, 0.5 + 0.5 * math.log(4) / math.log(11)),
        (100.0, 4, math.exp(-2) + (1 - math.exp(-2)) * math.log(5) / math.log(11)),
    ],
)
def test_fixed_points(age: float, accesses: int, expected: float) -> None:
    assert decay_score(age, accesses) == pytest.approx(expected, abs=1e-5)


def test_the_seed_formula_literally() -> None:
    for age in (0.5, 7, 30, 90, 400):
        for ac in (0, 1, 2, 7, 9):
            raw = math.exp(-0.02 * age)
            boost = min(1.0, math.log(1 + ac) / math.log(1 + 10))
            assert decay_score(age, ac) == pytest.approx(raw + (1 - raw) * boost, rel=1e-12)


def test_parameters_change_the_curve() -> None:
    assert decay_score(10, 0, lam=0.1) == pytest.approx(math.exp(-1))
    assert decay_score(10, 0, lam=0.0) == 1.0  # no decay at all
    assert decay_score(10, 3, lam=1.0, boost_cap=3) == pytest.approx(1.0)


@pytest.mark.parametrize(("lam", "cap"), [(-0.1, 10), (float("nan"), 10), (0.02, 0), (0.02, -1)])
def test_meaningless_parameters_are_refused(lam: float, cap: float) -> None:
    with pytest.raises(ConfigurationError):
        decay_score(1, 0, lam=lam, boost_cap=cap)


def test_negative_age_counts_as_zero() -> None:
    assert decay_score(-5, 0) == 1.0


@given(
    st.floats(0, 5000, allow_nan=False),
    st.floats(0, 5000, allow_nan=False),
    st.integers(0, 50),
)
def test_monotonic_in_age(a: float, b: float, accesses: int) -> None:
    young, old = sorted((a, b))
    assert decay_score(young, accesses) >= decay_score(old, accesses)


@given(st.floats(0, 5000, allow_nan=False), st.integers(0, 50), st.integers(0, 50))
def test_monotonic_in_accesses_and_bounded(age: float, a: int, b: int) -> None:
    few, many = sorted((a, b))
    assert 0.0 <= decay_score(age, few) <= decay_score(age, many) <= 1.0


def test_vectorized_equals_scalar() -> None:
    ages = np.array([0, 1.5, HALF_LIFE, 100, 1000, -3], dtype=np.float64)
    counts = np.array([0, 1, 2, 10, 0, 0])
    expected = [decay_score(a, c) for a, c in zip(ages, counts, strict=True)]
    assert decay_scores(ages, counts).tolist() == pytest.approx(expected, rel=1e-12)


def test_age_runs_from_the_later_of_last_access_and_last_confirmation_else_creation() -> None:
    assert days_since_reinforced(memory(40), NOW) == pytest.approx(40)
    assert days_since_reinforced(memory(40, accessed_days_ago=2), NOW) == pytest.approx(2)
    assert days_since_reinforced(memory(365, confirmed_days_ago=1), NOW) == pytest.approx(1)
    assert days_since_reinforced(memory(365, accessed_days_ago=3, confirmed_days_ago=9), NOW) == pytest.approx(3)
    assert days_since_reinforced(memory(365, accessed_days_ago=30, confirmed_days_ago=1), NOW) == pytest.approx(1)
    assert days_since_reinforced(memory(-1), NOW) == 0.0  # created "in the future": never negative
    naive_now = NOW.replace(tzinfo=None)
    assert days_since_reinforced(memory(3), naive_now) == pytest.approx(3)


def test_a_year_old_memory_confirmed_yesterday_has_not_decayed() -> None:
    assert memory_decay_score(memory(365, confirmed_days_ago=1), NOW) == pytest.approx(decay_score(1, 0))
    assert memory_decay_score(memory(365), NOW) < 0.001


def test_memory_score_uses_age_and_accesses() -> None:
    assert memory_decay_score(memory(HALF_LIFE), NOW) == pytest.approx(0.5)
    assert memory_decay_score(memory(400, accessed_days_ago=0), NOW) == pytest.approx(1.0)
    assert memory_decay_score(memory(400, access_count=10), NOW) == pytest.approx(1.0)


def test_payload_score_is_rounded() -> None:
    assert payload_decay_score(None) is None
    assert payload_decay_score(0.123456) == 0.12
    assert payload_decay_score(0.999) == 1.0
