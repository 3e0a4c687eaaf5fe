"""The manage phase's contracts: decay (with expiry), episode retention, consolidation, and the
keyword indexes' merging.

`sinks.sql.manage_store.MaintenanceStore` implements all four over the SQL store's engine; each job
is typed with the one it uses. `DecayRows` and `MergeWrite` are what crosses these contracts.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol, runtime_checkable

import numpy as np

from beliefs.records import Memory, MemoryEvent
from sinks.reach import EVERY_AGENT, Reach

#: (tenant, user) pairs a maintenance step is limited to.
Users = Sequence[tuple[str, str]]


@dataclass(frozen=True)
class DecayRows:
    """One batch of active rows: ids in key order and, aligned with them, the decay inputs."""

    ids: list[str]
    age_days: np.ndarray  # float64, may be negative (a future timestamp): the formula clamps
    access_counts: np.ndarray  # int64
    scores: np.ndarray  # float64, NaN where never scored
    expired: np.ndarray  # bool: `expires_at` has passed

    def __len__(self) -> int:
        return len(self.ids)


@dataclass(frozen=True)
class MergeWrite:
    """One merge as the store writes it: the canonical memory, the closed originals, the events."""

    canonical: Memory
    embedding: Sequence[float] | None
    originals: Sequence[Memory]  # their new version: consolidated, superseded by the canonical id
    events: Sequence[MemoryEvent] = field(default_factory=tuple)


class DecayWrites(Protocol):
    """The writes of one decay batch, inside one transaction the caller holds open."""

    async def write_scores(self, ids: Sequence[str], scores: Sequence[float]) -> None: ...

    async def expire(self, ids: Sequence[str], now: datetime) -> list[str]:
        """Close the rows whose `expires_at` has passed (their vector points owed); the ids it closed."""

    async def owe_points(self, ids: Sequence[str]) -> int:
        """Mark these rows' vector points owed to the index (the vector outbox); how many were."""


@runtime_checkable
class EpisodeRetentionStore(Protocol):
    """Episode retention: find the episodes past their `expires_at`, delete them."""

    async def expired_episode_ids(
        self, now: datetime, limit: int, tenant_id: str | None = None, users: Users | None = None
    ) -> list[str]:
        """Ids of episodes (of one tenant, of some users, or all) whose `expires_at` has passed at
        `now`, at most `limit`."""

    async def delete_episodes(self, ids: Sequence[str]) -> None: ...


@runtime_checkable
class DecayStore(EpisodeRetentionStore, Protocol):
    """The decay pass's store: scan active rows by keyset page, write scores and expiries; the pass
    also purges the episodes past their retention."""

    async def scan_active(
        self,
        after_id: str | None,
        limit: int,
        now: datetime,
        tenant_id: str | None = None,
        users: Users | None = None,
    ) -> DecayRows:
        """One keyset page of active rows (ids ascending; one tenant's, some users', or all) with
        their decay inputs."""

    async def active_users(
        self, after: tuple[str, str] | None, limit: int, tenant_id: str | None = None
    ) -> list[tuple[str, str]]:
        """One keyset page of the (tenant, user) pairs (of one tenant, or all) holding an active memory."""

    def decay_writer(self) -> AbstractAsyncContextManager[DecayWrites]:
        """A write transaction for one batch; it commits when the block exits without error."""


@runtime_checkable
class ConsolidationStore(Protocol):
    """Consolidation: a topic's active memories with embeddings in, merges out."""

    async def consolidation_candidates(
        self, tenant_id: str, topic: str, user_id: str | None = None, reach: Reach = EVERY_AGENT
    ) -> list[tuple[Memory, list[float] | None]]:
        """Active memories of a topic within `reach`, with their stored embeddings (None where never embedded)."""

    async def consolidation_scopes(
        self, tenant_id: str | None = None, users: Users | None = None
    ) -> list[tuple[str, str, str]]:
        """(tenant, user, topic) triples (of one tenant, of some users, or all) holding at least two
        active memories."""

    async def write_merges(self, tenant_id: str, merges: Sequence[MergeWrite]) -> list[MergeWrite]:
        """One transaction: the merges whose originals are all still active; answers those written."""


@runtime_checkable
class KeywordIndexStore(Protocol):
    """The keyword indexes that keep their segments few by merging, a short write step at a time."""

    def keyword_indexes(self) -> tuple[str, ...]:
        """The indexes that take merging (none where the database keeps its own)."""

    async def keyword_segments(self, index: str) -> int:
        """How many segments `index` holds now."""

    async def merge_keyword_index(self, index: str, pages: int, *, first: bool) -> bool:
        """Merge up to `pages` pages (`first` starts a pass); whether there was anything to merge."""
