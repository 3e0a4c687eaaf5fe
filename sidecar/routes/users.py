"""`GET /v1/users`, `GET /v1/users/{user_id}` and `GET /v1/users/{user_id}/attributes/{attribute}/history`.

The tenant's users with their memories counted by state, a page at a time, searchable by id (tenant
keys only: an agent-bound key sees one agent's slice, not the tenant's user base); one user's counts
at a glance (within the key's reach); and the values one attribute of a user held over time, from
the supersession chain ("what did the user prefer before?"): the memories' texts and values, so it
needs `recall` and reads within the key's reach, like the memory routes (`sidecar.access`).
"""

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, Field

from beliefs.episodes import EpisodeState
from beliefs.records import Memory, MemoryState
from sidecar.access import AccessGuard
from sidecar.auth import Principal
from sidecar.errors import BadRequest
from sidecar.schemas import ERROR_RESPONSES, UserIdPath
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


class UserOverviewView(BaseModel):
    """One user at a glance, as far as the key reaches; every count is 0 for a user with nothing stored."""

    user_id: str
    memories: dict[str, int] = Field(description="memories by state, every state listed (0 included)")
    total: int = Field(description="memories in every state")
    current_by_type: dict[str, int] = Field(description="current beliefs (active, not superseded) by type")
    current_by_topic: dict[str, int] = Field(description="current beliefs by topic, largest first")
    episodes: dict[str, int] = Field(description="episodes (turns kept as said) by state, every state listed")
    open_contested: int = Field(description="contested pairs awaiting a decision (GET /v1/contested)")
    last_memory_at: datetime | None = Field(description="when the user's newest memory was created")
    last_said_at: datetime | None = Field(description="when the user's newest episode was said")


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


def user_routes(guard: AccessGuard, admin: UserDirectory) -> APIRouter:
    router = APIRouter(tags=["users"], responses=ERROR_RESPONSES)

    @router.get("/v1/users", response_model=UserPage)
    async def list_users(
        principal: Annotated[Principal, Depends(guard)],
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
        cursor: Annotated[str | None, Query(description="`next_cursor` of the previous page")] = None,
        q: Annotated[
            str | None, Query(min_length=1, max_length=256, description="only users whose id contains this (any case)")
        ] = None,
    ) -> UserPage:
        """The users of the key's tenant who have memories, with counts by state."""
        try:
            users, next_cursor = await admin.list_users(principal.tenant_id, limit, cursor, search=q)
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

    @router.get("/v1/users/{user_id}", response_model=UserOverviewView)
    async def user_overview(
        principal: Annotated[Principal, Depends(guard)], user_id: UserIdPath
    ) -> UserOverviewView:
        """One user's memories by state, current beliefs by type and topic, episodes and open contested
        pairs, counted within the key's reach (another agent's private state is not counted)."""
        found = await admin.user_overview(principal.tenant_id, user_id, principal.reach)
        by_topic = sorted(found.current_by_topic.items(), key=lambda item: (-item[1], item[0]))
        return UserOverviewView(
            user_id=user_id,
            memories={state: found.memories.get(state, 0) for state in states_in_order()},
            total=sum(found.memories.values()),
            current_by_type=found.current_by_type,
            current_by_topic=dict(by_topic),
            episodes={state.value: found.episodes.get(state.value, 0) for state in EpisodeState},
            open_contested=found.open_contested,
            last_memory_at=found.last_memory_at,
            last_said_at=found.last_said_at,
        )

    @router.get("/v1/users/{user_id}/attributes/{attribute}/history", response_model=AttributeHistory)
    async def attribute_history(
        principal: Annotated[Principal, Depends(guard)],
        user_id: UserIdPath,
        attribute: str,
        entity: Annotated[str | None, Query(description="only this entity's attribute (default: any)")] = None,
    ) -> AttributeHistory:
        """Every value the attribute held, oldest first, and which hold now; empty when it never had one."""
        visible = await admin.attribute_history(principal.tenant_id, user_id, attribute, entity, principal.reach)
        return AttributeHistory(
            user_id=user_id,
            attribute=attribute,
            current=[_version(m) for m in visible if m.is_current],
            history=[_version(m) for m in visible],
        )

    return router
