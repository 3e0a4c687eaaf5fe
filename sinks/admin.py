"""The administration contracts: edits as new versions, the tenant's users, an attribute's history.

`sinks.sql.admin.AdminStore` implements them over the SQL store's engine; the sidecar's user and
edit routes hold them. Every call is scoped by tenant.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol, runtime_checkable

from beliefs.records import Memory, MemoryState


@dataclass(frozen=True)
class UserCounts:
    """One user of a tenant: memories by state, and when the newest was created."""

    user_id: str
    counts: dict[str, int] = field(default_factory=dict)
    last_memory_at: datetime | None = None

    @property
    def total(self) -> int:
        return sum(self.counts.values())


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
        self, tenant_id: str, limit: int = 100, cursor: str | None = None
    ) -> tuple[list[UserCounts], str | None]:
        """One page of the tenant's users (by user id) with their memories counted by state."""

    async def attribute_history(
        self, tenant_id: str, user_id: str, attribute: str, entity: str | None = None
    ) -> list[Memory]:
        """Every version of the user's `attribute` (of `entity`, or of any), oldest first."""


@runtime_checkable
class Administration(MemoryEdits, UserDirectory, Protocol):
    """Both: what `create_app` is handed as `admin`."""
