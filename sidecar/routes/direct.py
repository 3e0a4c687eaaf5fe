"""`POST /v1/memories`: store one fully specified memory, reconciled, embedded and indexed.

The answer is the memory as stored: 201 when this request created it, 200 when the claim was
already there (a retried POST, or the same value the user already holds, which it confirms). A
`memory_key` reused for a different claim is a 409. SQL commits the row with its vector outbox entry (and
those of anything the memory superseded); the projector writes the points.
"""

from typing import Annotated

from fastapi import APIRouter, Depends, Response

from beliefs.records import EventKind, Memory, utcnow
from embedding.embedder import Embedder
from sidecar.access import AccessGuard
from sidecar.auth import Principal
from sidecar.direct import MemoryIn, direct_memory, same_claim
from sidecar.errors import Conflict
from sidecar.mirror import follow
from sidecar.schemas import ERROR_RESPONSES, ErrorBody
from sinks.base import WriteResult
from sinks.contracts import GovernanceStore
from sinks.vector_outbox import Projection


def resolved_id(memory: Memory, result: WriteResult) -> tuple[str, bool]:
    """The id the claim lives under after reconcile, and whether this write created it."""
    if any(inserted.id == memory.id for inserted in result.inserted):
        return memory.id, True
    confirmed = [event.memory_id for event in result.events if event.kind is EventKind.CONFIRMED]
    return (confirmed[0] if confirmed else memory.id), False


def direct_routes(
    guard: AccessGuard,
    store: GovernanceStore,
    projector: Projection | None,
    embedder: Embedder,
) -> APIRouter:
    router = APIRouter(tags=["memories"], responses=ERROR_RESPONSES)

    @router.post(
        "/v1/memories",
        status_code=201,
        response_model=Memory,
        responses={
            200: {
                "model": Memory,
                "description": "Already stored (a retry), or confirmed an existing memory",
            },
            409: {"model": ErrorBody, "description": "memory_key already names a different claim"},
        },
    )
    async def store_memory(
        principal: Annotated[Principal, Depends(guard)], body: MemoryIn, response: Response
    ) -> Memory:
        """Direct insert: no extraction, but scope, validation and reconciliation apply."""
        memory = direct_memory(principal, body, utcnow())
        embedding = (await embedder.aembed([memory.text]))[0].tolist()
        result = await store.insert_memory(memory, embedding)
        memory_id, created = resolved_id(memory, result)
        stored = await store.get_memory(principal.tenant_id, memory_id)
        if stored is None:  # erased between the write and this read
            raise Conflict("the memory was erased while it was being stored; retry if it is still wanted")
        if memory_id == memory.id and not same_claim(stored, memory):
            raise Conflict("memory_key already names a different memory of this user; use another key")
        await follow(projector)
        if not created:
            response.status_code = 200
        return stored

    return router
