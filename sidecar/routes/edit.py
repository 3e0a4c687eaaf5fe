"""`PATCH /v1/memories/{id}`: correct a memory's text, value, importance, confidence or topic.

The correction is a new version that supersedes the old (`sidecar.edit`), written with a
`superseded` and an `edited` event in one SQL transaction; the new version's vector point and the
old one's payload are owed in the same transaction, and the projector writes them (`sidecar.mirror`).
An agent-bound key may edit only its own agent's memories; another tenant's memory, or one the key cannot see, is a 404.
"""

from typing import Annotated

from fastapi import APIRouter, Depends

from beliefs.records import utcnow
from embedding.embedder import Embedder
from sidecar.access import AccessGuard
from sidecar.auth import Principal
from sidecar.edit import MemoryEdit, edited_version
from sidecar.errors import BadRequest, Conflict, Forbidden, NotFound
from sidecar.mirror import follow
from sidecar.routes.memories import visible_to
from sidecar.schemas import ERROR_RESPONSES, ErrorBody, MemoryWithHistory
from sinks.admin import MemoryEdits
from sinks.contracts import GovernanceStore
from sinks.sql.errors import MemoryNotCurrentError
from sinks.vector_outbox import Projection


def edit_routes(
    guard: AccessGuard,
    store: GovernanceStore,
    admin: MemoryEdits,
    projector: Projection | None,
    embedder: Embedder,
) -> APIRouter:
    router = APIRouter(tags=["memories"], responses=ERROR_RESPONSES)

    @router.patch(
        "/v1/memories/{memory_id}",
        response_model=MemoryWithHistory,
        responses={409: {"model": ErrorBody, "description": "The memory is no longer the current belief"}},
    )
    async def edit_memory(
        principal: Annotated[Principal, Depends(guard)], memory_id: str, body: MemoryEdit
    ) -> MemoryWithHistory:
        """Correct a memory: the answer is the new version, with the old one in its `history`."""
        old = await store.get_memory(principal.tenant_id, memory_id)
        if old is None or not visible_to(principal, old):
            raise NotFound(f"no memory {memory_id!r}")
        if principal.agent_id is not None and old.agent_id != principal.agent_id:
            raise Forbidden("this API key is bound to one agent and may edit only that agent's memories")
        principal.require_to_change(old.private_to, "editing this memory")
        now = utcnow()
        try:
            new = edited_version(old, body, now)
        except ValueError as exc:
            raise BadRequest(str(exc)) from exc
        embedding = (await embedder.aembed([new.text]))[0].tolist()
        try:
            edited = await admin.edit_memory(principal.tenant_id, memory_id, new, embedding, now)
        except MemoryNotCurrentError as exc:
            raise Conflict(str(exc)) from exc
        if edited is None:  # erased in between
            raise NotFound(f"no memory {memory_id!r}")
        _, stored = edited
        await follow(projector)
        history = await store.memory_history(principal.tenant_id, stored.id)
        return MemoryWithHistory(**stored.model_dump(), history=[m for m in history if visible_to(principal, m)])

    return router
