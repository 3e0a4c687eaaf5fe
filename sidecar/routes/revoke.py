"""`POST /v1/memories/{id}/revoke`: the memory is never recalled again (contract §3).

Revocation keeps the row (state `revoked`, `revoked_at`, its interval closed) so the history says
what was withdrawn and when; the vector point's payload turns `revoked` (through the projector), so no
active-only search returns it. Revoking needs the `manage` capability, except that an agent forgets its own private
memories with `retain`; another agent's private memory, like another tenant's, is a 404. Revoking
twice answers the same memory and writes no second event.
"""

from typing import Annotated

from fastapi import APIRouter, Depends

from beliefs.records import Memory, utcnow
from sidecar.access import AccessGuard
from sidecar.auth import Principal
from sidecar.errors import NotFound
from sidecar.mirror import follow
from sidecar.routes.memories import visible_to
from sidecar.schemas import ERROR_RESPONSES
from sinks.contracts import GovernanceStore
from sinks.vector_outbox import Projection


async def revoke_memory(
    store: GovernanceStore, projector: Projection | None, principal: Principal, memory_id: str
) -> Memory:
    """Revoke one memory the principal can see (the HTTP route and the MCP `forget` tool)."""
    memory = await store.get_memory(principal.tenant_id, memory_id)
    if memory is None or not visible_to(principal, memory):
        raise NotFound(f"no memory {memory_id!r}")
    principal.require_to_change(memory.private_to, "revoking this memory")
    revoked = await store.revoke(principal.tenant_id, memory_id, utcnow())
    if revoked is None:  # erased in between
        raise NotFound(f"no memory {memory_id!r}")
    await follow(projector)
    return revoked


def revoke_routes(
    guard: AccessGuard, store: GovernanceStore, projector: Projection | None
) -> APIRouter:
    router = APIRouter(tags=["memories"], responses=ERROR_RESPONSES)

    @router.post("/v1/memories/{memory_id}/revoke", response_model=Memory)
    async def revoke(principal: Annotated[Principal, Depends(guard)], memory_id: str) -> Memory:
        """Revoke one memory of the key's tenant; answers it as stored after."""
        return await revoke_memory(store, projector, principal, memory_id)

    return router
