"""`DELETE /v1/users/{user_id}`: erasure of every row (memories, episodes, jobs, ...) and vector of one user in the tenant.

Erasure needs the `erase` capability and a key not bound to an agent (it removes every agent's
private state too): otherwise a 403. The answer is a deletion receipt (counts per kind, when, a
receipt id); the receipt row is all that SQL keeps of the erasure (`sinks.sql.governance`). The same transaction
leaves a tombstone for each vector point of the user, which the projector deletes: no point outlives
its row for long, and none is ever forgotten. What lives outside SQL and the index (the turns and DLQ topics,
events already published) is kept only as long as those topics' retention.
"""

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import APIRouter, Depends

from beliefs.records import utcnow
from sidecar.access import AccessGuard
from sidecar.auth import Principal
from sidecar.mirror import follow
from sidecar.schemas import ERROR_RESPONSES, ErasureView, UserIdPath
from sinks.contracts import GovernanceStore
from sinks.vector_outbox import Projection


def erasure_routes(
    guard: AccessGuard,
    store: GovernanceStore,
    projector: Projection | None,
    flush_reads: Callable[[], Awaitable[None]] | None = None,
) -> APIRouter:
    """`flush_reads` writes out what recall still buffers (its audit rows), so none lands after the erasure."""
    router = APIRouter(tags=["governance"], responses=ERROR_RESPONSES)

    @router.delete("/v1/users/{user_id}", response_model=ErasureView)
    async def erase_user(principal: Annotated[Principal, Depends(guard)], user_id: UserIdPath) -> ErasureView:
        """Delete every row and vector point of the user (memories and episodes included); answers the
        receipt (zeros for a user with none)."""
        if flush_reads is not None:
            await flush_reads()
        report = await store.erase_user(principal.tenant_id, user_id, principal.key_id)
        await follow(projector)  # the erasure left a tombstone per point, in its own transaction
        return ErasureView(
            user_id=user_id,
            memories_deleted=len(report.memory_ids),
            jobs_deleted=report.job_count,
            episodes_deleted=len(report.episode_ids),
            receipt_id=report.receipt_id or "",
            erased_at=report.erased_at or utcnow(),
            counts=report.counts,
        )

    return router
