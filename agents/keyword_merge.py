"""Merge the keyword indexes' segments: the manage phase's periodic job, a plain function.

Every flushed write adds a segment to a keyword index and every search looks its terms up in
each, so the job merges them, a step of a few hundred pages at a time. Each step is its own short
write transaction, so the write path waits for one step at most, never for the whole pass.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

from beliefs.errors import ConfigurationError
from sinks.manage import KeywordIndexStore

log = logging.getLogger(__name__)

#: Steps one pass takes at most on one index: a bound against a store written faster than merged.
MAX_STEPS = 10_000


@dataclass(frozen=True)
class KeywordMergeReport:
    """What one pass did to one index."""

    index: str
    segments_before: int
    segments_after: int
    steps: int  # steps that merged something
    seconds: float
    longest_step_s: float


async def merge_keyword_indexes(
    store: KeywordIndexStore, pages: int, *, max_steps: int = MAX_STEPS
) -> list[KeywordMergeReport]:
    """One pass over every index that holds more than one segment, each merged until nothing is left
    to merge (or `max_steps`); the event loop runs other work between steps."""
    if pages < 1 or max_steps < 1:
        raise ConfigurationError(f"keyword merge: pages and max_steps must be at least 1, got {pages} and {max_steps}")
    reports = []
    for index in store.keyword_indexes():
        before = await store.keyword_segments(index)
        if before <= 1:
            continue
        started = time.perf_counter()
        steps, longest = 0, 0.0
        while steps < max_steps:
            step_started = time.perf_counter()
            merged = await store.merge_keyword_index(index, pages, first=steps == 0)
            longest = max(longest, time.perf_counter() - step_started)
            if not merged:
                break
            steps += 1
            await asyncio.sleep(0)
        report = KeywordMergeReport(
            index, before, await store.keyword_segments(index), steps, time.perf_counter() - started, longest
        )
        log.info(
            "keyword index merged index=%s segments=%d->%d steps=%d seconds=%.2f longest_step_s=%.3f",
            index, report.segments_before, report.segments_after, steps, report.seconds, longest,
        )
        reports.append(report)
    return reports
