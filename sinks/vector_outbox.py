"""The vector outbox's contract: what the projector reads from SQL and marks done.

Every write path commits its rows together with what they owe the vector index: a row whose point
must be (re)written is pending, a deleted row leaves a tombstone. The projector
(`agents.projector`) is the only reader; it writes the index, then marks the entries done.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, runtime_checkable

from sinks.base import PendingEpisodeVector, PendingVector


@dataclass(frozen=True)
class Tombstone:
    """The point of a deleted row. `revived`: a row with that id exists again, so its point stays."""

    seq: int
    point_id: str
    revived: bool = False


@dataclass(frozen=True)
class Backlog:
    """What the index still owes SQL: points to write or delete, and since when the oldest."""

    points: int
    oldest_at: datetime | None

    def oldest_age_s(self, now: datetime) -> float:
        return 0.0 if self.oldest_at is None else max(0.0, (now - self.oldest_at).total_seconds())


@runtime_checkable
class VectorOutbox(Protocol):
    """The SQL side of the projection (`sinks.sql.vector_outbox.SqlVectorOutbox`)."""

    async def pending_vectors(self, limit: int = 1000) -> list[PendingVector]: ...

    async def mark_vectors_synced(self, memory_ids: Sequence[str]) -> None:
        """Done, unless the row changed again since `pending_vectors` handed it out."""

    async def pending_episode_vectors(self, limit: int = 1000) -> list[PendingEpisodeVector]: ...

    async def mark_episode_vectors_synced(self, episode_ids: Sequence[str]) -> None: ...

    async def tombstones(self, limit: int = 1000) -> list[Tombstone]:
        """The oldest tombstones, oldest first."""

    async def clear_tombstones(self, seqs: Sequence[int]) -> None: ...

    async def backlog(self) -> Backlog: ...


class Projection(Protocol):
    """What a governance request asks of the process's projector (`agents.projector.VectorProjector`):
    to bring the index in step with what it just committed, and how far behind it is."""

    async def settle(self, timeout_s: float = 2.0) -> bool:
        """Wait (bounded) for a pass that begins after this call; True if one finished."""

    async def backlog(self) -> Backlog: ...
