"""`GET /v1/users/{user_id}/reads`: the audit of reads, who recalled which of the user's memories and when.

Every recall leaves one record (`sidecar.recall.audit`): the key's fingerprint, the agent, when, the
query's sha256 (never its text), the ids of the memories and quotes returned, each of them with its
score and recall reason (`returned`), and what was left out and why (`withheld`); the record is
stored before the recall answers. Reading it needs
`recall`, like reading the memories themselves; a read by an agent shows only to keys that reach
that agent's private state (the agent's own key, a tenant key with `agents`).
"""

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, Field

from beliefs.records import AuditedRead, WithheldRead
from sidecar.access import AccessGuard
from sidecar.auth import Principal
from sidecar.errors import BadRequest
from sidecar.schemas import ERROR_RESPONSES, UserIdPath
from sinks.admin import ReadAudit
from sinks.sql.errors import InvalidCursorError


class ReadView(BaseModel):
    """One recall of the user's memories."""

    id: str
    at: datetime
    agent_id: str | None = Field(description="the agent the recall was made for, if any")
    key_id: str | None = Field(description="the fingerprint of the API key that read (never the key)")
    query_digest: str = Field(description="sha256 of the query: equal queries are linkable, the text is not kept")
    memory_ids: list[str] = Field(description="the memories returned, in prompt order")
    episode_ids: list[str] = Field(description="the quoted episodes returned")
    returned: list[AuditedRead] = Field(
        default_factory=list, description="each belief and quote returned, in order, with its score and reason"
    )
    withheld: list[WithheldRead] = Field(default_factory=list, description="candidates left out, and why")


class ReadPage(BaseModel):
    reads: list[ReadView] = Field(description="newest first")
    next_cursor: str | None = Field(description="pass as `cursor` for the next page; null on the last")


def read_routes(guard: AccessGuard, audit: ReadAudit) -> APIRouter:
    router = APIRouter(tags=["users"], responses=ERROR_RESPONSES)

    @router.get("/v1/users/{user_id}/reads", response_model=ReadPage)
    async def list_reads(
        principal: Annotated[Principal, Depends(guard)],
        user_id: UserIdPath,
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
        cursor: Annotated[str | None, Query(description="`next_cursor` of the previous page")] = None,
    ) -> ReadPage:
        """The recalls of the user's memories, newest first, one page at a time."""
        try:
            reads, next_cursor = await audit.list_reads(principal.tenant_id, user_id, principal.reach, limit, cursor)
        except InvalidCursorError as exc:
            raise BadRequest("cursor is not a next_cursor of this listing; start again without it") from exc
        return ReadPage(
            reads=[ReadView.model_validate(read.model_dump(exclude={"tenant_id", "user_id"})) for read in reads],
            next_cursor=next_cursor,
        )

    return router
