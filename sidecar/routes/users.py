"""`GET /v1/users` and `GET /v1/users/{user_id}/attributes/{attribute}/history`.

The tenant's users with their memories counted by state, a page at a time (tenant keys only: an
agent-bound key sees one agent's slice, not the tenant's user base); and the values one attribute
of a user held over time, from the supersession chain ("what did the user prefer before?").
"""

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, Field

from beliefs.records import Memory, MemoryState
from sidecar.auth import ApiKeyAuthenticator, Capability, Principal
from sidecar.errors import BadRequest, Forbidden
from sidecar.routes.memories import visible_to
from sidecar.schemas import ERROR_RESPONSES
from sinks.admin import UserDirectory, states_in_order
from sinks.sql.errors import InvalidCursorError


class UserSummary(BaseModel):
    user_id: str
    memories: dict[str, int] = Field(description="memories by state, every state listed (0 included)")
    total: int
    last_memory_at: datetime | None = Field(description="when the user's newest memory was created")


class UserPage(BaseModel):
    users: list[UserSummary] = Field(description="ordered by user_id")
    next_cursor: str | None = Field(description="pass as `cursor` for the next page; null on the last")


class AttributeValue(BaseModel):
    """One version of the attribute: what it said, from when to when, and what replaced it."""

    memory_id: str
    entity: str | None
    value: str | None
    context: str | None
    text: str
    state: MemoryState
    confidence: float
    valid_from: datetime
    valid_until: datetime | None
    superseded_by: str | None


class AttributeHistory(BaseModel):
    user_id: str
    attribute: str
    current: list[AttributeValue] = Field(description="the versions that hold now (one per context)")
    history: list[AttributeValue] = Field(description="every version, oldest first")


def _version(m: Memory) -> AttributeValue:
    return AttributeValue(
        memory_id=m.id,
        entity=m.entity,
        value=m.value,
        context=m.context,
        text=m.text,
        state=m.state,
        confidence=m.confidence,
        valid_from=m.valid_from,
        valid_until=m.valid_until,
        superseded_by=m.superseded_by,
    )


def user_routes(authenticate: ApiKeyAuthenticator, admin: UserDirectory) -> APIRouter:
    router = APIRouter(tags=["users"], responses=ERROR_RESPONSES)

    @router.get("/v1/users", response_model=UserPage)
    async def list_users(
        principal: Annotated[Principal, Depends(authenticate)],
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
        cursor: Annotated[str | None, Query(description="`next_cursor` of the previous page")] = None,
    ) -> UserPage:
        """The users of the key's tenant who have memories, with counts by state."""
        if principal.agent_id is not None:
            raise Forbidden("listing a tenant's users needs a tenant key; this API key is bound to one agent")
        principal.require(Capability.RECALL, "listing the tenant's users")
        try:
            users, next_cursor = await admin.list_users(principal.tenant_id, limit, cursor)
        except InvalidCursorError as exc:
            raise BadRequest("cursor is not a next_cursor of this listing; start again without it") from exc
        states = states_in_order()
        return UserPage(
            users=[
                UserSummary(
                    user_id=user.user_id,
                    memories={state: user.counts.get(state, 0) for state in states},
                    total=user.total,
                    last_memory_at=user.last_memory_at,
                )
                for user in users
            ],
            next_cursor=next_cursor,
        )

    @router.get("/v1/users/{user_id}/attributes/{attribute}/history", response_model=AttributeHistory)
    async def attribute_history(
        principal: Annotated[Principal, Depends(authenticate)],
        user_id: str,
        attribute: str,
        entity: Annotated[str | None, Query(description="only this entity's attribute (default: any)")] = None,
    ) -> AttributeHistory:
        """Every value the attribute held, oldest first, and which hold now; empty when it never had one."""
        found = await admin.attribute_history(principal.tenant_id, user_id, attribute, entity)
        visible = [m for m in found if visible_to(principal, m)]
        return AttributeHistory(
            user_id=user_id,
            attribute=attribute,
            current=[_version(m) for m in visible if m.is_current],
            history=[_version(m) for m in visible],
        )

    return router
