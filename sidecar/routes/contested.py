"""`GET /v1/contested` and `POST /v1/contested/{id}/resolve`: contradiction loops awaiting a decision.

A pair whose value kept flipping stops being auto-resolved (`beliefs.loops`); a person answers with
one value, or a value per context plus a default. The answer is stored as high-importance,
high-confidence meta-memories that recall honours; SQL commits them with their vector outbox
entries (and those of the contested memories they close); the projector follows (`sidecar.mirror`).

Contested pairs are scoped like memories: a loop in one agent's private beliefs is listed to that
agent (and to tenant keys with `agents`) only, and another key resolving it gets a 404. Listing
needs `recall`; resolving needs `manage`, which agent-bound keys lack by default.
"""

from datetime import datetime
from typing import Annotated, Any, Literal, Self

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, ConfigDict, Field, model_validator

from beliefs import loops
from beliefs.contested import ContestedSlot
from beliefs.records import MAX_ID_LENGTH, Memory, utcnow
from embedding.embedder import Embedder
from sidecar.access import AccessGuard
from sidecar.auth import Principal
from sidecar.errors import Conflict, NotFound
from sidecar.mirror import follow
from sidecar.schemas import ERROR_RESPONSES, ErrorBody
from sinks.contracts import ContestedStore
from sinks.sql.errors import ContestedResolvedError
from sinks.vector_outbox import Projection

Value = Annotated[str, Field(min_length=1, max_length=1000)]
ContextName = Annotated[str, Field(min_length=1, max_length=128)]


class ResolveIn(BaseModel):
    """Exactly one of `value` and `by_context`; `default` (the value outside every context) with the latter."""

    model_config = ConfigDict(extra="forbid")

    value: Value | None = None
    by_context: dict[ContextName, Value] | None = Field(default=None, max_length=32)
    default: Value | None = None

    @model_validator(mode="after")
    def _one_answer(self) -> Self:
        loops.resolution_choices(self.value, self.by_context, self.default)  # ValueError → 400
        return self


class ContestedOut(BaseModel):
    id: str
    user_id: str
    agent_id: str | None = Field(default=None, description="the agent whose private beliefs loop; null: shared")
    entity: str
    attribute: str
    status: Literal["open", "resolved"]
    value_history: list[dict[str, Any]]
    opened_at: datetime
    resolved_at: datetime | None = None
    resolution: dict[str, Any] | None = None

    @classmethod
    def of(cls, slot: ContestedSlot) -> Self:
        return cls(
            id=slot.id,
            user_id=slot.user_id,
            agent_id=slot.agent_id,
            entity=slot.entity,
            attribute=slot.attribute,
            status=slot.status,
            value_history=slot.value_history,
            opened_at=slot.opened_at,
            resolved_at=slot.resolved_at,
            resolution=slot.resolution,
        )


class ContestedList(BaseModel):
    contested: list[ContestedOut]


class ResolvedOut(BaseModel):
    contested: ContestedOut
    memories: list[Memory] = Field(description="the meta-memories now holding the decided values")


def contested_routes(
    guard: AccessGuard,
    store: ContestedStore,
    projector: Projection | None,
    embedder: Embedder,
) -> APIRouter:
    router = APIRouter(tags=["contested"], responses=ERROR_RESPONSES)

    @router.get("/v1/contested", response_model=ContestedList)
    async def list_contested(
        principal: Annotated[Principal, Depends(guard)],
        user_id: Annotated[str | None, Query(min_length=1, max_length=MAX_ID_LENGTH)] = None,
        status: Literal["open", "resolved", "all"] = "open",
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    ) -> ContestedList:
        """Entity/attribute pairs in a contradiction loop (this key's tenant and reach), with their value history."""
        slots = await store.list_contested(
            principal.tenant_id, user_id, None if status == "all" else status, limit, principal.reach
        )
        return ContestedList(contested=[ContestedOut.of(slot) for slot in slots])

    @router.post(
        "/v1/contested/{contested_id}/resolve",
        response_model=ResolvedOut,
        responses={409: {"model": ErrorBody, "description": "already resolved"}},
    )
    async def resolve(
        principal: Annotated[Principal, Depends(guard)], contested_id: str, body: ResolveIn
    ) -> ResolvedOut:
        """Decide a loop: one value, or values by context plus a default."""
        slot = await store.get_contested(principal.tenant_id, contested_id, principal.reach)
        if slot is None:
            raise NotFound("no such contested pair")
        if not slot.is_open:
            raise Conflict("this contested pair is already resolved")
        choices = loops.resolution_choices(body.value, body.by_context, body.default)
        texts = [loops.resolution_text(slot.attribute, value, context) for context, value in choices]
        vectors_ = [v.tolist() for v in await embedder.aembed(texts)]
        try:
            answer = await store.resolve_contested(
                principal.tenant_id,
                contested_id,
                value=body.value,
                by_context=body.by_context,
                default=body.default,
                at=utcnow(),
                resolved_by=principal.key_id or "api",
                embeddings=dict(zip(texts, vectors_, strict=True)),
                reach=principal.reach,
            )
        except ContestedResolvedError as exc:  # resolved concurrently
            raise Conflict("this contested pair is already resolved") from exc
        if answer is None:
            raise NotFound("no such contested pair")
        resolved, result = answer
        await follow(projector)
        return ResolvedOut(contested=ContestedOut.of(resolved), memories=result.inserted)

    return router
