"""The vector index follows a governance change that SQL has already committed.

SQL is the authority and recall hydrates every hit from it, so a point that lags behind can never
surface a revoked or erased memory; the index still has to follow, or recall's candidates thin out
and erased vectors linger. A failure here is a 503 whose retry is safe: every governance request
is idempotent and writes its points again.
"""

from __future__ import annotations

from collections.abc import Sequence

from beliefs.episodes import Episode
from beliefs.records import Memory
from sidecar.errors import Unavailable
from sinks.base import VectorIndex, VectorPoint, episode_payload, vector_payload
from sinks.errors import SinkError
from sinks.vector_outbox import VectorOutbox

_RETRY = "the vector index did not follow; retry the same request (it is idempotent)"


async def mirror(
    store: VectorOutbox, vectors: VectorIndex, points: Sequence[VectorPoint], changed: Sequence[Memory]
) -> None:
    """Upsert `points`, rewrite the payload of `changed`, then clear their SQL outbox flag."""
    try:
        await vectors.write(points)
        if changed:
            await vectors.set_payload({memory.id: vector_payload(memory) for memory in changed})
    except SinkError as exc:
        raise Unavailable(f"the change is stored, but {_RETRY}") from exc
    synced = list(dict.fromkeys([p.id for p in points] + [m.id for m in changed]))
    if synced:
        await store.mark_vectors_synced(synced)


async def mirror_episodes(store: VectorOutbox, vectors: VectorIndex, changed: Sequence[Episode]) -> None:
    """Rewrite the payload of `changed` episodes' points, then clear their SQL outbox flag."""
    if not changed:
        return
    try:
        await vectors.set_payload({episode.id: episode_payload(episode) for episode in changed})
    except SinkError as exc:
        raise Unavailable(f"the change is stored, but {_RETRY}") from exc
    await store.mark_episode_vectors_synced([episode.id for episode in changed])


async def delete_points(vectors: VectorIndex, memory_ids: Sequence[str]) -> None:
    """Delete the points of `memory_ids` (absent points are no error)."""
    try:
        await vectors.delete(memory_ids)
    except SinkError as exc:
        raise Unavailable(f"erasure incomplete: {_RETRY}") from exc
