"""The decay job: re-score every active memory, expire the volatile ones whose time has passed.

A thin loop over keyset pages of active rows. Per page: the formula over arrays
(`beliefs.decay`), then one transaction that expires what has expired, writes the scores that
changed, and marks owed the vector points whose rounded score or state changed (the vector
outbox); the projector rewrites their payloads, so the index never stays behind SQL for good.

Idempotent: a second run at the same `now` finds every score equal and writes nothing. Safe to
run concurrently (two workers compute the same values). Decayed memories rank lower at recall;
no memory is deleted here. Episodes past their retention are (`agents.retention`), at the end.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from agents.metrics import worker_metrics
from agents.projector import VectorProjector
from agents.retention import purge_expired_episodes
from beliefs.decay import DEFAULT_BOOST_CAP, DEFAULT_LAMBDA, PAYLOAD_DECIMALS, check_parameters, decay_scores
from beliefs.errors import ConfigurationError
from beliefs.records import utcnow
from sinks.manage import DecayStore, Users

log = logging.getLogger(__name__)

#: Scores closer than this are equal: re-running at the same instant must write nothing.
TOLERANCE = 1e-9


@dataclass(frozen=True)
class DecayReport:
    """What one run did."""

    rows: int  # active rows scanned
    updated: int  # decay scores written
    expired: int  # rows closed because `expires_at` passed
    payloads: int  # vector points owed a new payload or state (the projector writes them)
    seconds: float
    episodes_purged: int = 0  # episodes deleted because their retention ended

    @property
    def rows_per_s(self) -> float:
        return self.rows / self.seconds if self.seconds > 0 else float("inf")


@dataclass(frozen=True)
class BatchChanges:
    """What one page changes: pure output of `plan_batch`."""

    expired_ids: list[str]
    score_ids: list[str]
    scores: list[float]
    payloads: dict[str, dict]  # rounded score changes of points that stay active


def plan_batch(
    ids: list[str],
    age_days: np.ndarray,
    access_counts: np.ndarray,
    old_scores: np.ndarray,
    expired: np.ndarray,
    lam: float,
    boost_cap: float,
) -> BatchChanges:
    """The changes of one page: which rows expire, which scores moved, which payloads must follow."""
    new = decay_scores(age_days, access_counts, lam, boost_cap)
    live = ~expired
    unscored = np.isnan(old_scores)
    moved = live & (unscored | (np.abs(new - np.nan_to_num(old_scores)) > TOLERANCE))
    new_bucket = np.round(new, PAYLOAD_DECIMALS)
    bucket_moved = moved & (unscored | (np.round(np.nan_to_num(old_scores), PAYLOAD_DECIMALS) != new_bucket))
    score_at = np.flatnonzero(moved)
    return BatchChanges(
        expired_ids=[ids[i] for i in np.flatnonzero(expired)],
        score_ids=[ids[i] for i in score_at],
        scores=new[score_at].tolist(),
        payloads={ids[i]: {"decay_score": float(new_bucket[i])} for i in np.flatnonzero(bucket_moved)},
    )


async def run_decay(
    store: DecayStore,
    projector: VectorProjector | None,
    now: datetime | None = None,
    *,
    lam: float = DEFAULT_LAMBDA,
    boost_cap: float = DEFAULT_BOOST_CAP,
    batch_size: int = 5000,
    tenant_id: str | None = None,
    users: Users | None = None,
) -> DecayReport:
    """Score every active memory (of one tenant, of some users, or of all) at `now` (default: the
    current time) in pages of `batch_size`."""
    check_parameters(lam, boost_cap)
    if batch_size < 1:
        raise ConfigurationError(f"decay batch size must be at least 1, got {batch_size}")
    now = now or utcnow()
    started = time.perf_counter()
    rows = updated = expired = payloads = 0
    after: str | None = None
    while True:
        page = await store.scan_active(after, batch_size, now, tenant_id, users)
        if not page.ids:
            break
        after = page.ids[-1]
        rows += len(page)
        changes = plan_batch(
            page.ids, page.age_days, page.access_counts, page.scores, page.expired, lam, boost_cap
        )
        async with store.decay_writer() as writer:
            closed = await writer.expire(changes.expired_ids, now) if changes.expired_ids else []
            await writer.write_scores(changes.score_ids, changes.scores)
            if changes.payloads:
                payloads += await writer.owe_points(list(changes.payloads))
            payloads += len(closed)  # `expire` owed the closed ones' points
        updated += len(changes.score_ids)
        expired += len(closed)
        if len(page) < batch_size:
            break
    purged = await purge_expired_episodes(
        store, projector, now, batch_size=batch_size, tenant_id=tenant_id, users=users
    )
    if payloads and projector is not None:
        projector.wake()
    report = DecayReport(rows, updated, expired, payloads, time.perf_counter() - started, purged)
    changed = {"scanned": rows, "updated": updated, "expired": expired, "episodes_purged": purged}
    worker_metrics().jobs.observe("decay", report.seconds, changed)
    log.info(
        "decay: %d active rows, %d scores updated, %d expired, %d payloads, %d episodes past retention in %.2f s",
        report.rows,
        report.updated,
        report.expired,
        report.payloads,
        report.episodes_purged,
        report.seconds,
    )
    return report
