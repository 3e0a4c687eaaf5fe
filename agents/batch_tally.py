"""A written batch counted into its report: what was replayed, skipped, failed, inserted, and
which belief events the write raised."""

from __future__ import annotations

from collections.abc import Sequence

from agents.batch import BatchReport
from beliefs.records import EventKind, JobState
from beliefs.write_plan import TurnOutcome
from sinks.base import WriteResult


def tally(report: BatchReport, outcomes: Sequence[TurnOutcome], result: WriteResult) -> None:
    """Fill `report` from the batch's outcomes and what the store wrote; erased turns count nowhere."""
    replayed = set(result.replayed_job_ids)
    erased = set(result.erased_job_ids)
    for outcome in outcomes:
        if outcome.job_id in erased:
            continue
        if outcome.job_id in replayed:
            report.replayed += 1
        elif outcome.state is JobState.SKIPPED:
            report.skipped += 1
            reason = outcome.reason or "unknown"
            report.skip_reasons[reason] = report.skip_reasons.get(reason, 0) + 1
        elif outcome.state is JobState.FAILED:
            report.failed += 1
    report.inserted = len(result.inserted)
    for memory in result.inserted:
        kind = (memory.type.value, memory.trust.value)
        report.written[kind] = report.written.get(kind, 0) + 1
    report.episodes = len(result.episodes)
    for episode in result.episodes:
        kind = (episode.role.value, episode.trust.value)
        report.episodes_written[kind] = report.episodes_written.get(kind, 0) + 1
    report.confirmed = sum(1 for e in result.events if e.kind is EventKind.CONFIRMED)
    report.superseded = sum(1 for e in result.events if e.kind is EventKind.SUPERSEDED)
    report.contested = sum(1 for e in result.events if e.kind is EventKind.CONTESTED)
