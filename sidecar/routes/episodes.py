"""Episodes over HTTP: `GET /v1/users/{user_id}/episodes`, `GET /v1/episodes/{id}`, `POST /v1/episodes/{id}/revoke`.

An episode is a turn kept as said (`beliefs.records.Episode`): the evidence of the beliefs, so it
follows the memory routes' rules exactly (`sidecar.access`). Reading needs `recall`; revoking needs
`manage`, except an agent's own private episode (`retain`). Reads are scoped by the key's tenant and
reach in the store: another agent's private episode is seen only by tenant keys with `agents`, and
out of reach reads as not found. Revocation keeps the row (state `revoked`) and (through the
projector) turns its vector point's payload `revoked`, so recall never returns it again; revoking
twice answers the same episode and writes no second event.
"""

from typing import Annotated

from fastapi import APIRouter, Depends, Query

from beliefs.episodes import Episode, EpisodeState
from beliefs.records import utcnow
from sidecar.access import AccessGuard
from sidecar.auth import Principal
from sidecar.errors import BadRequest, NotFound
from sidecar.mirror import follow
from sidecar.schemas import (
    ERROR_RESPONSES,
    EpisodePage,
    Order,
    SessionQuery,
    UserIdPath,
    WorkspaceQuery,
    listing_context,
)
from sinks.contracts import BeliefReads, GovernanceStore
from sinks.vector_outbox import Projection

STATE_CHOICES = ", ".join(["all", *(state.value for state in EpisodeState)])


def _state(state: str) -> EpisodeState | None:
    if state == "all":
        return None
    try:
        return EpisodeState(state)
    except ValueError:
        raise BadRequest(f"state must be one of: {STATE_CHOICES}; got {state!r}") from None


async def _visible(store: BeliefReads, principal: Principal, episode_id: str) -> Episode:
    episode = await store.get_episode(principal.tenant_id, episode_id)
    if episode is None or not principal.reach.sees(episode.private_to):
        raise NotFound(f"no episode {episode_id!r}")
    return episode


def episode_routes(guard: AccessGuard, store: BeliefReads) -> APIRouter:
    router = APIRouter(tags=["episodes"], responses=ERROR_RESPONSES)

    @router.get("/v1/users/{user_id}/episodes", response_model=EpisodePage)
    async def list_episodes(
        principal: Annotated[Principal, Depends(guard)],
        user_id: UserIdPath,
        state: Annotated[str, Query(description=f"one of: {STATE_CHOICES}")] = "active",
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
        cursor: Annotated[str | None, Query(description="`next_cursor` of the previous page")] = None,
        order: Annotated[
            Order, Query(description="by when said: oldest or newest first (repeat it with `cursor`)")
        ] = "oldest",
        workspace_id: WorkspaceQuery = None,
        session_id: SessionQuery = None,
    ) -> EpisodePage:
        """The user's episodes (turns kept as said) in the order they were said, one page at a time."""
        wanted = _state(state)
        try:
            episodes, next_cursor = await store.list_episodes(
                principal.tenant_id,
                user_id,
                state=wanted,
                limit=limit,
                cursor=cursor,
                newest_first=order == "newest",
                reach=principal.reach,
                context=listing_context(workspace_id, session_id),
            )
        except ValueError as exc:  # the store's refusal of a cursor it did not hand out
            if cursor is None:
                raise
            raise BadRequest("cursor is not a next_cursor of this listing; start again without it") from exc
        return EpisodePage(episodes=episodes, next_cursor=next_cursor)

    @router.get("/v1/episodes/{episode_id}", response_model=Episode)
    async def get_episode(principal: Annotated[Principal, Depends(guard)], episode_id: str) -> Episode:
        """One episode; another tenant's (or another agent's private one) is a 404."""
        return await _visible(store, principal, episode_id)

    return router


def episode_revoke_routes(
    guard: AccessGuard, store: GovernanceStore, projector: Projection | None
) -> APIRouter:
    router = APIRouter(tags=["episodes"], responses=ERROR_RESPONSES)

    @router.post("/v1/episodes/{episode_id}/revoke", response_model=Episode)
    async def revoke_episode(principal: Annotated[Principal, Depends(guard)], episode_id: str) -> Episode:
        """Revoke one episode of the key's tenant (never recalled again); answers it as stored after."""
        episode = await _visible(store, principal, episode_id)
        principal.require_to_change(episode.private_to, "revoking this episode")
        revoked = await store.revoke_episode(principal.tenant_id, episode_id, utcnow())
        if revoked is None:  # erased in between
            raise NotFound(f"no episode {episode_id!r}")
        await follow(projector)
        return revoked

    return router
