"""Decay and consolidation as windowed jobs, divided among the workers by partition.

- **Activity.** Tumbling windows (`BELIEFSTREAM_MAINTENANCE_WINDOW_S`) of the users who wrote,
  keyed `tenant:user` like the turns: the ingest agent counts each written batch's turns in the
  window of the moment the sinks acknowledged it (`record`), so a window holds users whose memories
  are written by the time it closes, and a turn delivered again after a crash lands in an open
  window, never in one already maintained. The windows live in the worker that wrote them (see
  "Why not a faust table" below); a partition's next owner counts from its own writes on.
- **Closing.** Every `BELIEFSTREAM_MAINTENANCE_TICK_S` a worker takes the windows that have closed
  (ended a tick ago) of keys in the partitions it holds, re-scores their users' decay
  (`agents.user_maintenance`; never consolidation, which costs embeddings and LLM calls: weekly) and logs each (`maintained window user=<digest>
  ...`); windows of keys in partitions it no longer holds are dropped, their users are the new
  owner's. So a (user, window) is maintained once, by the worker holding the user's partition.
- **Sweep.** Every `BELIEFSTREAM_DECAY_INTERVAL_S` (decay) and `..._CONSOLIDATION_INTERVAL_S`
  (consolidation too) a worker walks every user with an active memory and keeps those of its
  partitions: it also covers the users whose window died with a worker.
- **Rebalance.** `on_partitions_revoked` empties the assignment, so a pass in flight stops before
  its next window or page; `on_rebalance_complete` installs the new one. Which users are whose is
  decided by the pure functions of `agents.ownership`.

Why not a faust table: the windows were a tumbling windowed faust table whose changelog carried
them to a partition's next owner. With it, the two-worker SIGKILL test
(`tests/integration/test_scale_out.py`) lost turns of the killed worker's partitions in 7 of 22
runs (offsets committed past records no worker wrote; with or without standby replicas, with the
changelog write awaited or not), and in a single-worker test faust's producer buffer crashed on a
changelog write ("Unrecognized partition"). Without the table the kill test passed 7 runs of 7.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

import faust

from agents.ownership import (
    Assignment,
    UserWindow,
    WindowedKey,
    closed_windows,
    grouped_by_window,
    key_digest,
    owned_users,
    window_of,
)
from agents.user_maintenance import Maintenance, SweepReport, sweep
from reading.decode import RawTurn
from streams.partitioner import partition_for
from streams.settings import Settings

log = logging.getLogger(__name__)


class WindowedJobs:
    """The activity windows and the maintenance passes of one worker."""

    def __init__(self, app: faust.App, settings: Settings, maintenance: Maintenance, worker_id: str) -> None:
        self.app = app
        self.settings = settings
        self.maintenance = maintenance
        self.worker_id = worker_id
        self.partitions = settings.topic_partitions
        self.assignment = Assignment()
        #: turns per (`tenant:user`, (window start, window end)) written by this worker
        self.activity: dict[WindowedKey, int] = {}

    def register(self) -> None:
        """Attach the rebalance hooks to the app."""
        turns_topic = self.settings.turns_topic

        async def on_revoked(sender: Any, *args: Any, **kwargs: Any) -> None:
            self.assignment.revoke()

        async def on_complete(sender: Any, *args: Any, **kwargs: Any) -> None:
            actives = self.app.assignor.assigned_actives()
            self.assignment.assign(tp.partition for tp in actives if tp.topic == turns_topic)
            log.info("maintenance owns partitions %s of %s", sorted(self.assignment.partitions), turns_topic)

        self.app.on_partitions_revoked.connect(on_revoked)
        self.app.on_rebalance_complete.connect(on_complete)

    async def record(self, written: Sequence[RawTurn]) -> None:
        """Count a written batch's turns in their key's current window."""
        window = window_of(time.time(), self.settings.maintenance_window_s)
        for key, count in Counter(t.key.decode("utf-8", errors="replace") for t in written if t.key).items():
            self.activity[(key, window)] = self.activity.get((key, window), 0) + count

    def _partition(self, key: str) -> int:
        return partition_for(key.encode("utf-8", errors="replace"), self.partitions)

    def _owner(self, generation: int) -> bool:
        return self.assignment.still(generation) and not self.app.rebalancing

    async def close_windows(self) -> int:
        """Maintain the users of every closed window of this worker's partitions; how many (user, window)."""
        generation = self.assignment.generation
        if not self._owner(generation) or not self.assignment.partitions:
            return 0
        now = time.time()
        grace = self.settings.maintenance_tick_s
        entries = closed_windows(list(self.activity), now, grace, self.assignment.partitions, self.partitions)
        for key, (start, end) in list(self.activity):  # closed, of a partition another worker holds now
            if end + grace <= now and self._partition(key) not in self.assignment.partitions:
                del self.activity[(key, (start, end))]
        done = 0
        for run in grouped_by_window(entries):
            if not self._owner(generation):
                break
            users = [user for entry in run if (user := entry.user) is not None]
            await self.maintenance.users(users, consolidate=False)  # decay only: merging is weekly
            done += self._forget(run)
        return done

    def _forget(self, run: Sequence[UserWindow]) -> int:
        """Delete each (user, window) of a maintained run and record it; how many."""
        for entry in run:
            self.activity.pop((entry.key, (entry.start, entry.end)), None)
            log.info(
                "maintained window user=%s partition=%d window=%.0f-%.0f worker=%s",
                key_digest(entry.key),
                self._partition(entry.key),
                entry.start,
                entry.end,
                self.worker_id,
            )
        return len(run)

    async def sweep(self, consolidate: bool = False) -> SweepReport:
        """The slow sweep over every user of this worker's partitions (consolidating too: the weekly
        pass, which previews first and keeps its diffs when the maintenance has a schedule)."""
        generation = self.assignment.generation
        assigned = self.assignment.partitions
        if not assigned:
            return SweepReport(0, 0, 0.0, complete=False)
        report = await sweep(
            self.maintenance,
            lambda users: owned_users(users, assigned, self.partitions),
            consolidate=consolidate,
            still_owner=lambda: self._owner(generation),
        )
        log.info(
            "maintenance sweep of partitions %s: %d users, %d rows in %.1f s (%.0f rows/s)%s",
            sorted(assigned),
            report.users,
            report.rows,
            report.seconds,
            report.rows_per_s,
            "" if report.complete else ", cut short by a rebalance",
        )
        return report
