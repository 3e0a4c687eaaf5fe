"""What the sidecar asks of consolidation: one topic's near-duplicates merged, or a dry run, within
the caller's reach. The process wires in `agents.consolidate.Consolidator`; the routes know only
this call, so the recall service does not depend on the worker package."""

from __future__ import annotations

from typing import Protocol

from beliefs.consolidation_diff import ConsolidationDiff
from sinks.reach import EVERY_AGENT, Reach


class Consolidation(Protocol):
    async def __call__(
        self,
        tenant_id: str,
        topic: str,
        user_id: str | None = None,
        threshold: float | None = None,
        dry_run: bool = True,
        reach: Reach = EVERY_AGENT,
    ) -> ConsolidationDiff: ...
