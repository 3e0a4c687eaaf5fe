"""The vector outbox: rows whose vector point is not yet known to be in the index.

SQL marks a memory or an episode dirty in the transaction that changes it; whoever brings the index
in step reads the pending rows, writes their points, then marks them synced. Its own protocol, so
the projection of SQL into the index can reshape it without touching the other contracts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from sinks.base import PendingEpisodeVector, PendingVector


@runtime_checkable
class VectorOutbox(Protocol):
    async def pending_vectors(self, limit: int = 1000) -> list[PendingVector]: ...

    async def mark_vectors_synced(self, memory_ids: Sequence[str]) -> None:
        """Clear the dirty flag, unless the row changed again since `pending_vectors` handed it out."""

    async def pending_episode_vectors(self, limit: int = 1000) -> list[PendingEpisodeVector]: ...

    async def mark_episode_vectors_synced(self, episode_ids: Sequence[str]) -> None: ...
