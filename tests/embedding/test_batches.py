"""Planning model calls by token length: every text once, few padded tokens, few calls."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from embedding.batches import CALL_OVERHEAD_TOKENS, plan_batches


def cost(lengths: list[int], batches: list[list[int]]) -> int:
    return sum(CALL_OVERHEAD_TOKENS + len(b) * max(lengths[i] for i in b) for b in batches)


@given(st.lists(st.integers(1, 128), max_size=300), st.integers(1, 64))
def test_every_text_is_planned_once_within_the_row_limit(lengths: list[int], max_rows: int) -> None:
    batches = plan_batches(lengths, max_rows)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    assert all(1 <= len(b) <= max_rows for b in batches)


@given(st.lists(st.integers(1, 128), min_size=1, max_size=300))
def test_never_costs_more_than_sorted_fixed_size_chunks(lengths: list[int]) -> None:
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    fixed = [order[i : i + 64] for i in range(0, len(order), 64)]
    assert cost(lengths, plan_batches(lengths, 64)) <= cost(lengths, fixed)


def test_an_outlier_gets_its_own_call_instead_of_padding_the_rest() -> None:
    lengths = [12] * 40 + [120]
    batches = plan_batches(lengths, 64)
    assert sorted(map(len, batches)) == [1, 40]


def test_similar_lengths_share_a_call() -> None:
    assert plan_batches([10, 11, 10, 12, 11], 64) == [[0, 2, 1, 4, 3]]


def test_a_large_group_is_cut_at_the_row_limit() -> None:
    assert list(map(len, plan_batches([10] * 130, 64))) == [64, 64, 2]


def test_nothing_to_plan() -> None:
    assert plan_batches([], 64) == []


def test_rejects_a_row_limit_below_one() -> None:
    with pytest.raises(ValueError, match="max_rows"):
        plan_batches([3], 0)
