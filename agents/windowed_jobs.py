"""Decay and consolidation as windowed stream jobs, divided among the workers by partition.

- **Activity.** A tumbling windowed faust table (`BELIEFSTREAM_MAINTENANCE_WINDOW_S`), keyed
  `tenant:user` and co-partitioned with the turns topic. The ingest agent counts each written batch's
  turns in their key's window of the moment the sinks acknowledged it (`record`), before it acks
  the offsets: a window holds users whose memories are written by the time it closes, and a turn
  delivered again after a crash lands in an open window, never in one already maintained. The
  table's changelog carries the counts to whichever worker owns the partition next (a standby
  replica already holds them).
- **Closing.** Every `BELIEFSTREAM_MAINTENANCE_TICK_S` a worker takes the windows that have closed
  (ended a tick ago) of keys in its own partitions, maintains their users (`agents.maintenance`:
  consolidate, then decay), and deletes each (user, window) from the table with a tombstone on the
  changelog. The run is logged (`maintained window user=<digest> ...`) once the tombstone is
  acknowledged, so a window is recorded done once, on one worker.
- **Sweep.** Every `BELIEFSTREAM_DECAY_INTERVAL_S` (decay) and `..._CONSOLIDATION_INTERVAL_S`
  (consolidation too) a worker walks every user with an active memory and keeps those of its partitions.
- **Rebalance.** `on_partitions_revoked` empties the assignment, so a pass in flight stops before
  its next window or page; `on_rebalance_complete` (after faust recovered the table) installs the
  new one. Which users are whose is decided by the pure functions of `agents.ownership`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

import faust

from agents.decode import RawTurn
from agents.maintenance import Maintenance, SweepReport, sweep
from agents.ownership import Assignment, UserWindow, closed_windows, grouped_by_window, owned_users
from sinks.sql.governance import user_digest
from streams.partitioner import partition_for
from streams.settings import Settings

log = logging.getLogger(__name__)

#: How long a tombstone may take to be acknowledged before the window is left for the next tick.
TOMBSTONE_TIMEOUT_S = 30.0


class WindowedJobs:
    """The activity table, its agent and the maintenance passes of one worker."""

    def __init__(self, app: faust.App, settings: Settings, maintenance: Maintenance, worker_id: str) -> None:
        self.app = app
        self.settings = settings
        self.maintenance = maintenance
        self.worker_id = worker_id
        self.partitions = settings.topic_partitions
        self.assignment = Assignment()
        self.table = (
            app.Table(
                "maintenance-activity",
                default=int,
                partitions=settings.topic_partitions,
                help="turns per tenant:user and maintenance window",
            )
            .tumbling(settings.maintenance_window_s)
            .table
        )

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
        """Count a written batch's turns in their key's current window, here and on the changelog
        partition of the key (where its owner looks), acknowledged before the batch's offsets are."""
        window = tuple(self.table.window.current(time.time()))
        counts = Counter(turn.key.decode("utf-8", errors="replace") for turn in written if turn.key)
        sent = []
        for key, count in counts.items():
            windowed_key = (key, window)
            value = self.table.data.get(windowed_key, 0) + count
            self.table.data[windowed_key] = value
            sent.append(self.table.send_changelog(self._partition(key), windowed_key, value))
        if sent:
            await asyncio.gather(*sent)

    def _partition(self, key: str) -> int:
        return partition_for(key.encode("utf-8", errors="replace"), self.partitions)

    def _owner(self, generation: int) -> bool:
        return self.assignment.still(generation) and not self.app.rebalancing

    async def close_windows(self) -> int:
        """Maintain the users of every closed window of this worker's partitions; how many (user, window)."""
        generation = self.assignment.generation
        if not self._owner(generation) or not self.assignment.partitions:
            return 0
        keys = [k for k in list(self.table.data.keys()) if isinstance(k, tuple) and len(k) == 2]
        grace = self.settings.maintenance_tick_s
        entries = closed_windows(keys, time.time(), grace, self.assignment.partitions, self.partitions)
        done = 0
        for run in grouped_by_window(entries):
            if not self._owner(generation):
                break
            users = [user for entry in run if (user := entry.user) is not None]
            await self.maintenance.users(users, consolidate=True)
            done += await self._forget(run)
        return done

    async def _forget(self, run: Sequence[UserWindow]) -> int:
        """Delete each (user, window) from the table, here and on the changelog, and record the ones
        whose tombstone the broker acknowledged; how many."""
        sent = []
        for entry in run:
            key = (entry.key, (entry.start, entry.end))
            self.table.data.pop(key, None)
            sent.append(self.table.send_changelog(self._partition(entry.key), key, None, value_serializer="raw"))
        done = 0
        for entry, future in zip(run, sent, strict=True):
            try:
                await asyncio.wait_for(asyncio.shield(future), TOMBSTONE_TIMEOUT_S)
            except TimeoutError:
                log.warning("maintenance: a window's tombstone was not acknowledged; its users may run again")
                continue
            log.info(
                "maintained window user=%s partition=%d window=%.0f-%.0f worker=%s",
                user_digest(*(entry.user or ("", entry.key)))[:16],
                self._partition(entry.key),
                entry.start,
                entry.end,
                self.worker_id,
            )
            done += 1
        return done

    async def sweep(self, consolidate: bool = False) -> SweepReport:
        """The slow sweep over every user of this worker's partitions."""
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
