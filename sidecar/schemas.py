"""Request and response bodies of the sidecar (contract §3), validated at the HTTP edge.

Request models forbid unknown fields: a misspelt `agent_id` must fail loudly, not silently widen
scope. Every field is bounded (`beliefs.bounds`), with the same checks the pipeline applies to a
turn from Kafka, so a turn accepted here is never rejected there. Memories go out exactly as
contract §2 defines them (`beliefs.records.Memory`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import Path, Query
from pydantic import AfterValidator, BaseModel, ConfigDict, Discriminator, Field, Tag, ValidationInfo

from beliefs.bounds import (
    MAX_ID_LENGTH,
    MAX_TURNS_PER_REQUEST,
    metadata_violation,
    text_violation,
)
from beliefs.episodes import Episode
from beliefs.records import JobState, Memory, Role
from sinks.contracts import ConversationContext


def storable(value: str | None, info: ValidationInfo) -> str | None:
    """Refuse NUL (and a lone surrogate, which the body middleware already catches)."""
    if value is not None and (violation := text_violation(value, info.field_name or "value")):
        raise ValueError(violation.detail)
    return value


def bounded_metadata(value: dict[str, Any]) -> dict[str, Any]:
    if violation := metadata_violation(value):
        raise ValueError(violation.detail)
    return value


#: Text every store can keep: no NUL, no lone surrogate.
StorableText = Annotated[str, AfterValidator(storable)]
Identifier = Annotated[str, Field(min_length=1, max_length=MAX_ID_LENGTH), AfterValidator(storable)]
#: A user id in a path, held to a write's bounds: no route answers for, or erases (with a receipt),
#: an id no write could have stored (10,000 characters, a NUL): a 422 instead.
UserIdPath = Annotated[
    str, Path(min_length=1, max_length=MAX_ID_LENGTH, description="the user's id"), AfterValidator(storable)
]


WorkspaceQuery = Annotated[
    str | None,
    Query(min_length=1, max_length=MAX_ID_LENGTH, description="only this workspace's rows and those of no workspace"),
    AfterValidator(storable),
]
SessionQuery = Annotated[
    str | None,
    Query(min_length=1, max_length=MAX_ID_LENGTH, description="only what was said in this session"),
    AfterValidator(storable),
]


def listing_context(workspace_id: str | None, session_id: str | None) -> ConversationContext:
    """The workspace and session a listing's caller named, as the store narrows by them."""
    return ConversationContext(workspace_id=workspace_id, session_id=session_id)


class TurnIn(BaseModel):
    """One turn as a client posts it: contract §1 without the tenant, which the key decides.

    `tenant_id` and `agent_id` are accepted only to be checked against the key (403 on mismatch).
    """

    model_config = ConfigDict(extra="forbid")

    turn_id: Identifier | None = Field(
        default=None, description="unique within the tenant; generated when absent"
    )
    tenant_id: Identifier | None = Field(default=None, description="must equal the key's tenant when given")
    user_id: Identifier
    agent_id: Identifier | None = None
    session_id: Identifier | None = None
    workspace_id: Identifier | None = Field(
        default=None, description="what this turn yields is seen only by reads in this workspace"
    )
    role: Role
    text: StorableText
    ts: datetime | None = Field(default=None, description="when it was said; now (UTC) when absent")
    metadata: Annotated[dict[str, Any], AfterValidator(bounded_metadata)] = Field(
        default_factory=dict,
        description="free-form JSON; `speaker` (a name) at most 128 characters; at most 16 KiB, 8 levels deep",
    )


class RetainBatch(BaseModel):
    model_config = ConfigDict(extra="forbid")

    turns: list[TurnIn] = Field(min_length=1, max_length=MAX_TURNS_PER_REQUEST)


def _retain_shape(value: Any) -> str:
    """A body with `turns` is a batch; anything else is read as a single turn."""
    is_batch = isinstance(value, RetainBatch) or (isinstance(value, dict) and "turns" in value)
    return "batch" if is_batch else "turn"


#: `POST /v1/retain` takes one turn or `{"turns": [...]}`.
RetainBody = Annotated[
    Annotated[RetainBatch, Tag("batch")] | Annotated[TurnIn, Tag("turn")],
    Discriminator(_retain_shape),
]


class RetainAccepted(BaseModel):
    job_ids: list[str] = Field(description="one per turn, in input order; the same turn gives the same id")


class JobView(BaseModel):
    job_id: str
    state: JobState
    memory_ids: list[str]
    reason: str | None
    episode_id: str | None = Field(
        default=None, description="the episode the turn was kept as (also when no memory was extracted)"
    )
    created_at: datetime
    updated_at: datetime


#: `order` of a listing: by creation (episodes: by when said), oldest or newest first.
Order = Literal["oldest", "newest"]


class MemoryPage(BaseModel):
    memories: list[Memory]
    next_cursor: str | None = Field(description="pass as `cursor` for the next page; null on the last")


class EpisodePage(BaseModel):
    episodes: list[Episode]
    next_cursor: str | None = Field(description="pass as `cursor` for the next page; null on the last")


class MemorySource(BaseModel):
    """One turn a memory was learnt from, and the episode that keeps its words (if any is in reach)."""

    turn_id: str
    episode: Episode | None = Field(description="the turn as said: text, said_at, speaker, role; null if none")


class MemorySources(BaseModel):
    memory_id: str
    sources: list[MemorySource] = Field(description="in the order the memory cites them (its first turn first)")
    total: int = Field(description="turns the memory cites; more than `sources` when over the 50 quoted")


class MemoryWithHistory(Memory):
    history: list[Memory] = Field(description="the supersession chain this memory belongs to, oldest first")


class ErasureView(BaseModel):
    """What `DELETE /v1/users/{user_id}` removed in the key's tenant: the deletion receipt."""

    user_id: str
    memories_deleted: int = Field(description="memory rows deleted, with their vector points")
    jobs_deleted: int = Field(description="job rows of the user's retained turns deleted")
    episodes_deleted: int = Field(default=0, description="episode rows deleted, with their vector points")
    receipt_id: str = Field(description="the id of the receipt kept in `erasure_receipts` (all the erasure keeps)")
    erased_at: datetime
    counts: dict[str, int] = Field(
        description="rows removed per kind: memories, embeddings, episodes, vector_points, jobs, intake_turns, ..."
    )


class ErrorDetail(BaseModel):
    code: str
    message: str


class ValidationDetail(BaseModel):
    loc: list[str | int]
    msg: str


class ErrorBody(BaseModel):
    """The shape of every error response (contract §3); 422s add one `details` entry per problem."""

    error: ErrorDetail
    details: list[ValidationDetail] | None = None


class Liveness(BaseModel):
    status: str


class ProjectionLag(BaseModel):
    backlog: int = Field(description="vector points owed to the index (rows to write, tombstones to delete)")
    oldest_age_seconds: float = Field(description="age of the oldest owed point; 0 when none")


class Readiness(BaseModel):
    status: str
    checks: dict[str, str] = Field(description="dependency → `ok` or `failed`")
    vector_projection: ProjectionLag | None = Field(
        default=None,
        description="the vector projector's lag, where this process projects; reported, never a reason to be unready",
    )


#: Documented on every authenticated route, so the OpenAPI document shows the error shape.
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": description}
    for status, description in {
        400: "Malformed request (invalid JSON, bad parameter)",
        401: "Missing or unknown API key",
        403: "The body names a tenant or agent the key does not grant",
        404: "Not found in the caller's tenant",
        413: "Body or turn text over the limit",
        422: "The body or parameters do not validate",
        429: "The API key is over its rate limit; retry after `Retry-After` seconds",
        503: "A dependency is unavailable; retry",
    }.items()
}
