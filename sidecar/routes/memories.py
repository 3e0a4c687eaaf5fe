"""`GET /v1/users/{user_id}/memories`, `GET /v1/memories/{id}` and its `/sources`: the belief state as stored.

Reads need the `recall` capability (`sidecar.access`) and are scoped by the key's tenant and reach
in the store. An agent-bound key never sees another agent's private (`visibility=agent`) memories,
nor does a tenant key without the `agents` capability; out of scope reads as not found.
"""

from typing import Annotated

from fastapi import APIRouter, Depends, Query

from beliefs.episodes import episode_id_for
from beliefs.records import Memory, MemoryState, MemoryType
from sidecar.access import AccessGuard
from sidecar.auth import Principal
from sidecar.errors import BadRequest, NotFound
from sidecar.schemas import (
    ERROR_RESPONSES,
    MemoryPage,
    MemorySource,
    MemorySources,
    MemoryWithHistory,
    Order,
    SessionQuery,
    UserIdPath,
    WorkspaceQuery,
    listing_context,
)
from sinks.contracts import BeliefReads, MemoryListing

STATE_CHOICES = ", ".join(["all", *(state.value for state in MemoryState)])
#: Source turns a memory's `/sources` quotes at most (a belief confirmed more often cites its first ones).
MAX_SOURCES = 50


def visible_to(principal: Principal, memory: Memory) -> bool:
    """Private working memory of one agent stays with that agent (and tenant keys with `agents`)."""
    return principal.reach.sees(memory.private_to)


def parse_state(state: str) -> MemoryState | None:
    """`all` lists every state (None to the store); anything else must name a state."""
    if state == "all":
        return None
    try:
        return MemoryState(state)
    except ValueError:
        raise BadRequest(f"state must be one of: {STATE_CHOICES}; got {state!r}") from None


def memory_routes(guard: AccessGuard, store: BeliefReads) -> APIRouter:
    router = APIRouter(tags=["memories"], responses=ERROR_RESPONSES)

    @router.get("/v1/users/{user_id}/memories", response_model=MemoryPage)
    async def list_memories(
        principal: Annotated[Principal, Depends(guard)],
        user_id: UserIdPath,
        state: Annotated[str, Query(description=f"one of: {STATE_CHOICES}")] = "active",
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
        cursor: Annotated[str | None, Query(description="`next_cursor` of the previous page")] = None,
        type: Annotated[MemoryType | None, Query(description="only memories of this type")] = None,
        topic: Annotated[str | None, Query(min_length=1, max_length=64, description="only this topic")] = None,
        order: Annotated[Order, Query(description="by creation: oldest or newest first (repeat it with `cursor`)")] = "oldest",
        workspace_id: WorkspaceQuery = None,
        session_id: SessionQuery = None,
    ) -> MemoryPage:
        """The user's memories in the store's stable order (creation, then id), one page at a time."""
        wanted = parse_state(state)
        narrowing = MemoryListing(type=type, topic=topic, newest_first=order == "newest")
        try:
            memories, next_cursor = await store.list_memories(
                principal.tenant_id,
                user_id,
                state=wanted,
                limit=limit,
                cursor=cursor,
                narrowing=narrowing,
                reach=principal.reach,
                context=listing_context(workspace_id, session_id),
            )
        except ValueError as exc:  # the store's refusal of a cursor it did not hand out
            if cursor is None:
                raise
            raise BadRequest("cursor is not a next_cursor of this listing; start again without it") from exc
        return MemoryPage(memories=memories, next_cursor=next_cursor)

    @router.get("/v1/memories/{memory_id}", response_model=MemoryWithHistory)
    async def get_memory(
        principal: Annotated[Principal, Depends(guard)], memory_id: str
    ) -> MemoryWithHistory:
        """One memory and its supersession chain; another tenant's memory is a 404."""
        memory = await store.get_memory(principal.tenant_id, memory_id)
        if memory is None or not visible_to(principal, memory):
            raise NotFound(f"no memory {memory_id!r}")
        history = await store.memory_history(principal.tenant_id, memory_id)
        visible = [entry for entry in history if visible_to(principal, entry)]
        return MemoryWithHistory(**memory.model_dump(), history=visible)

    @router.get("/v1/memories/{memory_id}/sources", response_model=MemorySources)
    async def memory_sources(
        principal: Annotated[Principal, Depends(guard)], memory_id: str
    ) -> MemorySources:
        """The turns a memory was learnt from (`source_turn_ids`, at most 50), each with its episode:
        the words as said, when and by whom (null when the turn was kept as no episode, or is out of reach)."""
        memory = await store.get_memory(principal.tenant_id, memory_id)
        if memory is None or not visible_to(principal, memory):
            raise NotFound(f"no memory {memory_id!r}")
        sources = []
        for turn_id in memory.source_turn_ids[:MAX_SOURCES]:
            episode = await store.get_episode(principal.tenant_id, episode_id_for(principal.tenant_id, turn_id))
            if episode is not None and not principal.reach.sees(episode.private_to):
                episode = None
            sources.append(MemorySource(turn_id=turn_id, episode=episode))
        return MemorySources(memory_id=memory_id, sources=sources, total=len(memory.source_turn_ids))

    return router
