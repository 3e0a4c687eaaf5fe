"""The worker's maintenance wiring: the windowed jobs over the process's clients, and their loops.

Decay and consolidation run as windowed stream jobs split by partition (`agents.windowed_jobs`);
this module only builds them from Settings and names the periodic loops `run_worker` starts.
Consolidation is only the weekly pass (`BELIEFSTREAM_CONSOLIDATION_INTERVAL_S`), a dry run first with
its diff kept (`agents.consolidate.schedule`), and none at all with `BELIEFSTREAM_CONSOLIDATION_ENABLED=false`.
"""

from __future__ import annotations

import functools
import os
import socket

import faust

from agents.consolidate import Consolidator
from agents.consolidate.schedule import ConsolidationSchedule
from agents.keyword_merge import merge_keyword_indexes
from agents.periodic import Job
from agents.user_maintenance import Maintenance
from agents.windowed_jobs import WindowedJobs
from sinks.sql.manage_store import MaintenanceStore
from streams.settings import Settings


def windowed_jobs(
    app: faust.App, settings: Settings, store: MaintenanceStore, consolidator: Consolidator
) -> WindowedJobs:
    """The worker's windowed decay and consolidation over the process's store and consolidator."""
    maintenance = Maintenance(
        store,
        consolidator.projector,
        consolidator,
        lam=settings.decay_lambda,
        boost_cap=settings.decay_boost_cap,
        batch_size=settings.decay_batch_size,
        schedule=consolidation_schedule(settings),
    )
    return WindowedJobs(app, settings, maintenance, worker_id=f"{socket.gethostname()}:{os.getpid()}")


def consolidation_schedule(settings: Settings) -> ConsolidationSchedule:
    """The weekly pass's schedule: its diffs and preview marker under `data_dir/consolidation`."""
    return ConsolidationSchedule(settings.data_dir / "consolidation", settings.consolidation_dry_run_first)


def maintenance_loops(
    settings: Settings, jobs: WindowedJobs, store: MaintenanceStore
) -> list[tuple[str, float, Job, float]]:
    """(name, interval, job, first delay) of the worker's maintenance: closed windows every tick
    (decay), the decay sweep hourly (a first one a minute in), the consolidation sweep weekly unless
    switched off, the keyword indexes' merge hourly."""
    tick = settings.maintenance_tick_s
    consolidation = (
        "consolidation sweep",
        settings.consolidation_interval_s,
        functools.partial(jobs.sweep, consolidate=True),
        settings.consolidation_interval_s,
    )
    return [
        ("windowed maintenance", tick, jobs.close_windows, tick),
        ("decay sweep", settings.decay_interval_s, jobs.sweep, min(60.0, settings.decay_interval_s)),
        *([consolidation] if settings.consolidation_enabled else []),
        (
            "keyword index merge",
            settings.keyword_merge_interval_s,
            functools.partial(merge_keyword_indexes, store, settings.keyword_merge_pages),
            settings.keyword_merge_interval_s,
        ),
    ]
