"""The reaper's decisions: a pending turn is lost only once the consumer went past its publication."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from agents.reaping import OffsetSnapshot, caught_up, failure_reason, plan_reap, processed_before

NOW = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)


@dataclass
class Row:
    job_id: str
    published_at: datetime
    attempts: int = 0


def ago(seconds: float) -> datetime:
    return NOW - timedelta(seconds=seconds)


@pytest.mark.parametrize(
    ("ends", "committed", "expected"),
    [
        ({0: 10, 1: 4}, {0: 10, 1: 4}, True),
        ({0: 10, 1: 4}, {0: 12, 1: 9}, True),  # records arrived since: still past the snapshot
        ({0: 10, 1: 4}, {0: 10, 1: 3}, False),  # one partition behind
        ({0: 10}, {}, False),  # nothing committed yet
        ({0: 0, 1: 0}, {}, True),  # empty partitions: nothing to catch up with
        ({0: 5}, {0: None}, False),
        ({}, {}, True),
    ],
)
def test_caught_up_needs_every_partition_past_the_snapshot(ends, committed, expected):
    assert caught_up(OffsetSnapshot(NOW, ends), committed) is expected


def test_processed_before_is_the_newest_snapshot_the_consumer_passed():
    snapshots = [OffsetSnapshot(ago(90), {0: 10}), OffsetSnapshot(ago(60), {0: 20}), OffsetSnapshot(ago(30), {0: 30})]
    assert processed_before(snapshots, {0: 25}) == ago(60)  # lagging: past the older two only
    assert processed_before(snapshots, {0: 30}) == ago(30)
    assert processed_before(snapshots, {0: 5}) is None
    assert processed_before([], {0: 5}) is None


def test_nothing_is_reaped_while_the_consumer_has_not_caught_up():
    rows = [Row("a", ago(3600), attempts=5)]
    plan = plan_reap(rows, now=NOW, processed_before=None, requeue_after_s=0, max_attempts=3)
    assert (plan.republish, plan.fail) == ([], [])


def test_a_turn_published_before_the_watermark_and_long_enough_ago_is_republished():
    rows = [Row("old", ago(300)), Row("recent", ago(30)), Row("after", ago(5))]
    plan = plan_reap(rows, now=NOW, processed_before=ago(10), requeue_after_s=120, max_attempts=3)
    assert plan.republish == ["old"]  # recent: too young; after: the consumer may not have reached it
    assert plan.fail == []


def test_a_turn_published_exactly_at_the_watermark_is_left():
    plan = plan_reap([Row("edge", ago(500))], now=NOW, processed_before=ago(500), requeue_after_s=0, max_attempts=3)
    assert plan.republish == []


@pytest.mark.parametrize(("attempts", "fails"), [(0, False), (2, False), (3, True), (7, True)])
def test_after_max_attempts_the_job_fails_instead(attempts, fails):
    plan = plan_reap(
        [Row("j", ago(600), attempts)], now=NOW, processed_before=ago(60), requeue_after_s=120, max_attempts=3
    )
    assert (plan.fail, plan.republish) == ((["j"], []) if fails else ([], ["j"]))


def test_the_failure_reason_says_what_happened_and_where_to_look():
    reason = failure_reason(3)
    assert reason.startswith("not_processed:")
    assert "4 times" in reason and "DLQ" in reason
