"""Maintenance of some users: consolidate their topics (the weekly sweep only), then re-score their decay.

The unit the windowed jobs (`agents.windowed_jobs`) hand out: the users who wrote in a window that
closed, or one page of the slow sweep, always users of partitions the worker owns. Plain functions
over the store, so they run (and are tested) without a broker. Both steps are idempotent: running
them again for the same users changes nothing that the first run did not.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from agents.consolidate.consolidator import Consolidator
from agents.consolidate.schedule import ConsolidationSchedule
from agents.decay_job import run_decay
from agents.projector import VectorProjector
from beliefs.decay import DEFAULT_BOOST_CAP, DEFAULT_LAMBDA
from sinks.manage import DecayStore

log = logging.getLogger(__name__)

#: Users maintained per call: bounds the `(tenant, user) IN (...)` lists the statements carry.
USERS_PER_CALL = 100


@dataclass(frozen=True)
class UsersReport:
    """What maintaining some users did."""

    users: int
    rows: int  # active memories re-scored
    updated: int  # decay scores written
    expired: int
    merged: int  # consolidation groups written
    seconds: float


@dataclass(frozen=True)
class Maintenance:
    """The clients and parameters the maintenance of users runs with; `consolidator` None skips merging.
    With a `schedule`, consolidation previews or applies as it says and its diffs are kept there."""

    store: DecayStore
    projector: VectorProjector | None  # nudged after a run; None: the index's owner projects
    consolidator: Consolidator | None
    lam: float = DEFAULT_LAMBDA
    boost_cap: float = DEFAULT_BOOST_CAP
    batch_size: int = 5000
    schedule: ConsolidationSchedule | None = None

    async def users(
        self, users: Sequence[tuple[str, str]], *, consolidate: bool = True, now: datetime | None = None
    ) -> UsersReport:
        """Consolidate (unless told not to) and then decay-score `users`, in chunks."""
        rows = updated = expired = merged = 0
        seconds = 0.0
        for start in range(0, len(users), USERS_PER_CALL):
            chunk = list(users[start : start + USERS_PER_CALL])
            if consolidate and self.consolidator is not None:
                if self.schedule is None:
                    merged += (await self.consolidator.consolidate_users(chunk)).applied
                else:
                    dry_run, keep = self.schedule.dry_run, self.schedule.keep
                    merged += (await self.consolidator.consolidate_users(chunk, dry_run, keep)).applied
            decay = await run_decay(
                self.store,
                self.projector,
                now,
                lam=self.lam,
                boost_cap=self.boost_cap,
                batch_size=self.batch_size,
                users=chunk,
            )
            rows, updated, expired = rows + decay.rows, updated + decay.updated, expired + decay.expired
            seconds += decay.seconds
        return UsersReport(len(users), rows, updated, expired, merged, seconds)


@dataclass(frozen=True)
class SweepReport:
    """What one sweep over the worker's users did; `complete` is False when a rebalance cut it short."""

    users: int
    rows: int
    seconds: float  # wall time of the sweep
    complete: bool

    @property
    def rows_per_s(self) -> float:
        return self.rows / self.seconds if self.seconds > 0 else 0.0


async def sweep(
    maintenance: Maintenance,
    mine: Callable[[list[tuple[str, str]]], list[tuple[str, str]]],
    *,
    consolidate: bool = False,
    page: int = 1000,
    still_owner: Callable[[], bool] = lambda: True,
    now: datetime | None = None,
    tenant_id: str | None = None,
) -> SweepReport:
    """Every user (of one tenant, or of all) with an active memory that `mine` keeps, page by page;
    stops early (incomplete) when `still_owner` turns False: the users are another worker's now.
    A consolidating sweep under a schedule previews or applies as the schedule says at its start,
    and a complete preview tells the schedule so (the next pass applies)."""
    schedule = maintenance.schedule if consolidate and maintenance.consolidator is not None else None
    dry_run = schedule is not None and schedule.dry_run
    report = await _sweep(maintenance, mine, consolidate, page, still_owner, now, tenant_id)
    if schedule is not None:
        schedule.finished(dry_run, report.complete)
    return report


async def _sweep(
    maintenance: Maintenance,
    mine: Callable[[list[tuple[str, str]]], list[tuple[str, str]]],
    consolidate: bool,
    page: int,
    still_owner: Callable[[], bool],
    now: datetime | None,
    tenant_id: str | None,
) -> SweepReport:
    users = rows = 0
    started = time.perf_counter()
    after: tuple[str, str] | None = None
    while True:
        if not still_owner():
            return SweepReport(users, rows, time.perf_counter() - started, complete=False)
        listed = await maintenance.store.active_users(after, page, tenant_id)
        if not listed:
            break
        after = listed[-1]
        owned = mine(listed)
        if owned:
            report = await maintenance.users(owned, consolidate=consolidate, now=now)
            users, rows = users + report.users, rows + report.rows
        if len(listed) < page:
            break
    log.info("maintenance sweep: %d users, %d active memories re-scored", users, rows)
    return SweepReport(users, rows, time.perf_counter() - started, complete=True)
