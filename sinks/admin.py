"""The administration contracts: edits as new versions, the tenant's users, one user's overview,
an attribute's history, and the audit of reads.

`sinks.sql.admin.AdminStore` implements them over the SQL store's engine; the sidecar's user and
edit routes hold them. Every call is scoped by tenant (and by `Reach` where private state counts).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol, runtime_checkable

from beliefs.records import Memory, MemoryState, RecallAudit
from sinks.reach import EVERY_AGENT, Reach


@dataclass(frozen=True)
class UserCounts:
    """One user of a tenant: memories by state, and when the newest was created."""

    user_id: str
    counts: dict[str, int] = field(default_factory=dict)
    last_memory_at: datetime | None = None

    @property
    def total(self) -> int:
        return sum(self.counts.values())


@dataclass(frozen=True)
class UserOverview:
    """One user at a glance: memories by state, the current ones by type and topic, episodes by
    state, open contested pairs, and the newest memory and turn."""

    user_id: str
    memories: dict[str, int] = field(default_factory=dict)
    current_by_type: dict[str, int] = field(default_factory=dict)
    current_by_topic: dict[str, int] = field(default_factory=dict)
    episodes: dict[str, int] = field(default_factory=dict)
    open_contested: int = 0
    last_memory_at: datetime | None = None
    last_said_at: datetime | None = None


def states_in_order() -> list[str]:
    """Every memory state, for answers that count them all (zero included)."""
    return [state.value for state in MemoryState]


@runtime_checkable
class MemoryEdits(Protocol):
    async def edit_memory(
        self, tenant_id: str, memory_id: str, new: Memory, embedding: Sequence[float] | None, at: datetime
    ) -> tuple[Memory, Memory] | None:
        """Store `new` as the current version of `memory_id`, which it supersedes; (old as closed, new).
        None when the memory is not this tenant's; `MemoryNotCurrentError` when it is no longer current."""


@runtime_checkable
class UserDirectory(Protocol):
    async def list_users(
        self, tenant_id: str, limit: int = 100, cursor: str | None = None, search: str | None = None
    ) -> tuple[list[UserCounts], str | None]:
        """One page of the tenant's users (by user id) with their memories counted by state; with
        `search`, only users whose id contains it (case-insensitive)."""

    async def user_overview(self, tenant_id: str, user_id: str, reach: Reach) -> UserOverview:
        """The counts of one user's state that `reach` sees (all zero for a user with none)."""

    async def attribute_history(
        self, tenant_id: str, user_id: str, attribute: str, entity: str | None = None, reach: Reach = EVERY_AGENT
    ) -> list[Memory]:
        """Every version of the user's `attribute` (of `entity`, or of any) within `reach`, oldest first."""


@runtime_checkable
class ReadAudit(Protocol):
    async def list_reads(
        self, tenant_id: str, user_id: str, reach: Reach, limit: int = 100, cursor: str | None = None
    ) -> tuple[list[RecallAudit], str | None]:
        """One page of the recalls of the user's memories, newest first: those made by a tenant key,
        and by agents `reach` sees."""


@runtime_checkable
class Administration(MemoryEdits, UserDirectory, ReadAudit, Protocol):
    """All three: what `create_app` is handed as `admin`."""
