"""Consumer lag per partition: end offset minus the group's committed offset, never negative."""

from __future__ import annotations

from launch.lag import partition_lag


def test_lag_is_what_the_group_has_not_committed() -> None:
    assert partition_lag({0: 10, 1: 7}, {0: 4, 1: 7}, {}) == {0: 6, 1: 0}


def test_a_partition_never_committed_counts_from_its_first_offset() -> None:
    assert partition_lag({0: 10, 1: 5}, {0: None, 1: -1}, {0: 3, 1: 0}) == {0: 7, 1: 5}


def test_lag_is_never_negative() -> None:  # a committed offset read after a newer end offset
    assert partition_lag({0: 10}, {0: 12}, {}) == {0: 0}
