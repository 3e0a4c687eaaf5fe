"""Run a maintenance job on a fixed interval until asked to stop.

A plain asyncio loop rather than a faust timer: a faust timer fires on every worker, while this
runs where the entry point starts it. The jobs it runs (decay, consolidation) are idempotent, so
two workers running them anyway only do the work twice. A failed run never ends the loop: it is
logged and retried with back-off (`retry_initial_s`, doubling up to `retry_max_s`, never later than
the next tick), so an hourly sweep that failed on a database outage runs minutes after it is back,
not an hour later.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from agents.webhook_signing import retry_delay_s
from beliefs.errors import ConfigurationError

log = logging.getLogger(__name__)

Job = Callable[[], Awaitable[Any]]


async def run_periodically(
    interval_s: float,
    job: Job,
    stop: asyncio.Event,
    *,
    name: str = "job",
    initial_delay_s: float = 0.0,
    retry_initial_s: float = 5.0,
    retry_max_s: float = 300.0,
) -> int:
    """Run `job` now (after `initial_delay_s`), then every `interval_s`, until `stop` is set; a
    failed run is retried after `retry_initial_s`, doubling up to `retry_max_s` (capped at the interval).

    The interval runs from the end of one run to the start of the next, so a slow run never
    overlaps the following one. Answers the number of runs that completed without error.
    """
    if interval_s <= 0 or initial_delay_s < 0:
        raise ConfigurationError(
            f"{name}: interval must be > 0 and initial delay >= 0, got {interval_s} and {initial_delay_s}"
        )
    completed = failures = 0
    if await _wait(stop, initial_delay_s):
        return completed
    while not stop.is_set():
        try:
            await job()
            completed, failures, delay = completed + 1, 0, interval_s
        except asyncio.CancelledError:
            raise
        except Exception:  # a periodic job must survive anything one run raises
            failures += 1
            delay = min(interval_s, retry_delay_s(failures, retry_initial_s, retry_max_s))
            log.exception("%s failed (%d in a row); retrying in %.1f s", name, failures, delay)
        if await _wait(stop, delay):
            break
    return completed


async def _wait(stop: asyncio.Event, seconds: float) -> bool:
    """Sleep up to `seconds`; True when `stop` was set meanwhile."""
    if seconds <= 0:
        return stop.is_set()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=seconds)
    return stop.is_set()
