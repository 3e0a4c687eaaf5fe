"""`Consolidator`: consolidation with its dependencies bound, for the sidecar route, the CLI and
the worker's weekly sweep (`consolidate_users`, dry run first: `agents.consolidate.schedule`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from agents.consolidate.merge import Merger, OfflineMerger
from agents.consolidate.run import consolidate
from agents.projector import VectorProjector
from beliefs.consolidation_diff import ConsolidationDiff
from embedding.embedder import Embedder
from sinks.manage import ConsolidationStore, Users
from sinks.reach import EVERY_AGENT, Reach

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SweepReport:
    """What one pass over every (tenant, user, topic) did."""

    scopes: int
    groups: int
    applied: int


class Consolidator:
    """The store, the projector, the embedder and the merger consolidation runs with."""

    def __init__(
        self,
        store: ConsolidationStore,
        projector: VectorProjector | None,
        embedder: Embedder | None,
        merger: Merger | None = None,
        threshold: float = 0.85,
    ) -> None:
        self.store = store
        self.projector = projector  # nudged after a merge; None: the index's owner projects
        self.embedder = embedder
        self.merger = merger or OfflineMerger()
        self.threshold = threshold

    async def __call__(
        self,
        tenant_id: str,
        topic: str,
        user_id: str | None = None,
        threshold: float | None = None,
        dry_run: bool = True,
        reach: Reach = EVERY_AGENT,
    ) -> ConsolidationDiff:
        """Consolidate one topic; only memories within `reach` (a caller's view) are loaded at all."""
        return await consolidate(
            self.store,
            self.projector,
            self.embedder,
            tenant_id,
            topic,
            user_id=user_id,
            threshold=self.threshold if threshold is None else threshold,
            dry_run=dry_run,
            merger=self.merger,
            reach=reach,
        )

    async def consolidate_everywhere(
        self, tenant_id: str | None = None, dry_run: bool = False
    ) -> SweepReport:
        """Every (tenant, user, topic) with two or more active memories, one at a time (bounded memory)."""
        return await self._sweep(await self.store.consolidation_scopes(tenant_id), dry_run)

    async def consolidate_users(
        self, users: Users, dry_run: bool = False, keep: Callable[[ConsolidationDiff], None] | None = None
    ) -> SweepReport:
        """Every topic with two or more active memories of each of `users` ((tenant, user) pairs):
        what the worker's weekly sweep does for the users it owns; `keep` is given each diff."""
        if not users:
            return SweepReport(0, 0, 0)
        return await self._sweep(await self.store.consolidation_scopes(users=users), dry_run, keep)

    async def _sweep(
        self,
        scopes: list[tuple[str, str, str]],
        dry_run: bool,
        keep: Callable[[ConsolidationDiff], None] | None = None,
    ) -> SweepReport:
        groups = applied = 0
        for tenant, user, topic in scopes:
            diff = await self(tenant, topic, user_id=user, dry_run=dry_run)
            if keep is not None:
                keep(diff)
            groups += len(diff.groups)
            applied += len(diff.applied_groups)
        log.info("consolidation: %d scopes, %d groups found, %d merged", len(scopes), groups, applied)
        return SweepReport(len(scopes), groups, applied)
