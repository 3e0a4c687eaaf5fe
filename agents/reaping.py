"""What the intake reaper does with turns that stay queued: pure decisions, no I/O.

A turn still in the intake is lost only if the consumer has already gone past the place where it
was published: while it is merely in the backlog, re-publishing it would only add load, and failing
it would lose it. So the reaper keeps snapshots of the topic's end offsets, one per pass; once the
consumer group's committed offsets reach one on every partition, everything published before that
snapshot was processed (`caught_up`, `processed_before`), and a turn published before then that is still pending was
lost on the way (a broker that died, a 503 after the SQL commit, a record the pipeline rejected).
Such a turn is re-published, and after `max_attempts` re-publications its job fails with a reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol


class Pending(Protocol):
    job_id: str
    published_at: datetime
    attempts: int


@dataclass(frozen=True)
class OffsetSnapshot:
    """The topic's end offset of each partition at a moment."""

    at: datetime
    ends: Mapping[int, int]


def caught_up(snapshot: OffsetSnapshot, committed: Mapping[int, int | None]) -> bool:
    """Has the consumer group committed past every record the snapshot saw?"""
    return all((committed.get(p) or 0) >= end for p, end in snapshot.ends.items())


def processed_before(snapshots: Sequence[OffsetSnapshot], committed: Mapping[int, int | None]) -> datetime | None:
    """The time of the newest snapshot the consumer has caught up with: every record published
    before it was processed. None when it has caught up with none (it is behind all of them)."""
    passed = [s.at for s in snapshots if caught_up(s, committed)]
    return max(passed) if passed else None


@dataclass
class ReapPlan:
    republish: list[str] = field(default_factory=list)  # job ids
    fail: list[str] = field(default_factory=list)


def plan_reap(
    rows: Sequence[Pending],
    *,
    now: datetime,
    processed_before: datetime | None,
    requeue_after_s: float,
    max_attempts: int,
) -> ReapPlan:
    """Re-publish or fail each pending turn that was published before `processed_before` (everything
    published before then was consumed) and at least `requeue_after_s` ago; leave the rest."""
    plan = ReapPlan()
    if processed_before is None:
        return plan
    old_enough = now - timedelta(seconds=requeue_after_s)
    for row in rows:
        if row.published_at >= processed_before or row.published_at > old_enough:
            continue
        (plan.fail if row.attempts >= max_attempts else plan.republish).append(row.job_id)
    return plan


def failure_reason(attempts: int) -> str:
    """The reason a reaped job carries: said so that an operator knows where to look."""
    return (
        f"not_processed: the turn was published {attempts + 1} times and the worker went past it each "
        "time without finishing its job (see the DLQ for a rejection)"
    )
