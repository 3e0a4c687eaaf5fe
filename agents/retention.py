"""Episode retention: episodes past `expires_at` (`BELIEFSTREAM_EPISODE_RETENTION_DAYS`) are deleted.

Run by the decay job. Per page, the vector points go first and the rows after, like erasure: a
failure in between leaves rows that the next run finds again, never points nobody can name.
"""

from __future__ import annotations

from datetime import datetime

from sinks.base import VectorIndex
from sinks.sql.maintenance import MaintenanceStore
from sinks.sql.queries import Users


async def purge_expired_episodes(
    store: MaintenanceStore,
    vectors: VectorIndex | None,
    now: datetime,
    *,
    batch_size: int = 5000,
    tenant_id: str | None = None,
    users: Users | None = None,
) -> int:
    """Delete every episode (of one tenant, of some users, or of all) whose retention ended by `now`;
    how many."""
    purged = 0
    while ids := await store.expired_episode_ids(now, batch_size, tenant_id, users):
        if vectors is not None:
            await vectors.delete(ids)
        await store.delete_episodes(ids)
        purged += len(ids)
        if len(ids) < batch_size:
            break
    return purged
