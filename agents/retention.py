"""Episode retention: episodes past `expires_at` (`BELIEFSTREAM_EPISODE_RETENTION_DAYS`) are deleted.

Run by the decay job. Each page of rows is deleted in one transaction that leaves a tombstone per
vector point; the projector deletes the points, so none outlives its row for long.
"""

from __future__ import annotations

from datetime import datetime

from agents.projector import VectorProjector
from sinks.manage import EpisodeRetentionStore, Users


async def purge_expired_episodes(
    store: EpisodeRetentionStore,
    projector: VectorProjector | None,
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
        await store.delete_episodes(ids)
        purged += len(ids)
        if len(ids) < batch_size:
            break
    if purged and projector is not None:
        projector.wake()
    return purged
