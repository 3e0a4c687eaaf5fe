"""The data model, in one place and data only: turns in, memories and events out.

`Turn` is the wire record of `beliefstream.turns` (contract §1). `Claim` is what an extractor
says a turn asserts. `Memory` is the governed record of contract §2, the row the SQL store
keeps and the point Qdrant mirrors. `Episode` is one turn kept as said (the evidence beside the
beliefs). `MemoryEvent`, `EpisodeEvent` and `Job` follow the belief state.
Persistence lives in `sinks/`; nothing here saves itself.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from beliefs.bounds import MAX_ID_LENGTH, metadata_violation, text_violation

#: Namespace of every deterministic id beliefstream derives (memory ids, job ids).
ID_NAMESPACE = uuid.UUID("5d0f3c1e-8d0b-4f43-9a57-4f1c6f1f2b11")


def utcnow() -> datetime:
    """Timezone-aware now; every timestamp in beliefstream is UTC."""
    return datetime.now(UTC)


def as_utc(moment: datetime) -> datetime:
    """A naive datetime is taken as UTC; an aware one is converted to UTC."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


class Role(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    TOOL = "tool"


class MemoryType(StrEnum):
    PREFERENCE = "preference"
    FACT = "fact"
    DECISION = "decision"
    PROCEDURE = "procedure"


class Visibility(StrEnum):
    AGENT = "agent"  # private working memory of one agent
    USER = "user"  # every agent of this user
    TENANT = "tenant"


class RecallSemantics(StrEnum):
    DEFAULT = "default"  # yields to a live instruction
    CONSTRAINT = "constraint"  # negative memory: fires on its trigger, never yields silently


class Polarity(StrEnum):
    POSITIVE = "positive"  # the slot holds the value
    NEGATIVE = "negative"  # the slot does not (or no longer) hold the value: "no longer lives in Berlin"


class Sensitivity(StrEnum):
    """Special categories of personal data: recalled only in their domain or when asked for."""

    HEALTH = "health"
    RELIGION = "religion"
    SEXUALITY = "sexuality"
    POLITICS = "politics"
    FINANCES = "finances"
    LOCATION = "location"


class Trust(StrEnum):
    TRUSTED = "trusted"
    CAUTION = "caution"
    UNTRUSTED = "untrusted"


class MemoryState(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    CONTESTED = "contested"
    CONSOLIDATED = "consolidated"
    REVOKED = "revoked"
    EXPIRED = "expired"


class JobState(StrEnum):
    QUEUED = "queued"
    DONE = "done"
    SKIPPED = "skipped"
    FAILED = "failed"


class EventKind(StrEnum):
    CREATED = "created"
    CONFIRMED = "confirmed"
    SUPERSEDED = "superseded"
    REVOKED = "revoked"
    CONTESTED = "contested"  # joined a contradiction loop: awaiting a person's decision
    EPISODE_CREATED = "episode_created"  # an `EpisodeEvent`: a turn was kept as an episode
    EPISODE_REVOKED = "episode_revoked"  # an `EpisodeEvent`: an episode is never recalled again
    EDITED = "edited"  # a person's correction: this new version superseded the one it corrects


class Turn(BaseModel):
    """One conversation turn as published on `beliefstream.turns` (contract §1)."""

    model_config = ConfigDict(extra="ignore", frozen=True, str_strip_whitespace=False)

    turn_id: str = Field(min_length=1, max_length=MAX_ID_LENGTH)
    tenant_id: str = Field(min_length=1, max_length=MAX_ID_LENGTH)
    user_id: str = Field(min_length=1, max_length=MAX_ID_LENGTH)
    agent_id: str | None = Field(default=None, max_length=MAX_ID_LENGTH)
    session_id: str | None = Field(default=None, max_length=MAX_ID_LENGTH)
    #: the workspace the conversation belongs to, if the caller names one: what it yields is seen
    #: only by reads in that workspace (structural, like an agent's private memory)
    workspace_id: str | None = Field(default=None, max_length=MAX_ID_LENGTH)
    role: Role
    text: str
    ts: datetime = Field(default_factory=utcnow)
    metadata: dict[str, Any] = Field(default_factory=dict)
    #: when beliefstream accepted the turn (the sidecar stamps it); set, it can only make the turn
    #: older than its broker record (`beliefs.erasure`): erasure refuses turns accepted before it.
    accepted_at: datetime | None = None

    @field_validator("ts")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        return as_utc(value)

    @field_validator("accepted_at")
    @classmethod
    def _utc_or_none(cls, value: datetime | None) -> datetime | None:
        return as_utc(value) if value is not None else None

    @field_validator("turn_id", "tenant_id", "user_id", "agent_id", "session_id", "workspace_id", "text")
    @classmethod
    def _storable_text(cls, value: str | None, info: Any) -> str | None:
        """No lone surrogate, no NUL: every store and the JSON encoder can keep the text."""
        if value is not None and (violation := text_violation(value, info.field_name)):
            raise ValueError(violation.detail)
        return value

    @field_validator("metadata")
    @classmethod
    def _bounded_metadata(cls, value: dict[str, Any]) -> dict[str, Any]:
        if violation := metadata_violation(value):
            raise ValueError(violation.detail)
        return value

    @property
    def key(self) -> str:
        """The Kafka key: one user's turns stay in order on one partition."""
        return f"{self.tenant_id}:{self.user_id}"

    @property
    def visibility(self) -> Visibility:
        """`agent` when an agent asks for private working memory (`metadata.visibility`), else `user`."""
        if self.metadata.get("visibility") == Visibility.AGENT.value and self.agent_id:
            return Visibility.AGENT
        return Visibility.USER

    @property
    def speaker(self) -> str | None:
        """Who is speaking when several humans share a conversation (`metadata.speaker`)."""
        speaker = self.metadata.get("speaker")
        return speaker.strip() if isinstance(speaker, str) and speaker.strip() else None


class Claim(BaseModel):
    """What an extractor says one turn asserts: a memory before it has scope and an id."""

    model_config = ConfigDict(frozen=True)

    text: str = Field(min_length=1, max_length=2000)
    type: MemoryType
    topic: str = Field(default="personal", min_length=1, max_length=64)
    importance: float = Field(ge=0.0, le=1.0)
    confidence: float = Field(ge=0.0, le=1.0)
    entity: str | None = None
    attribute: str | None = None
    value: str | None = None
    context: str | None = None
    polarity: Polarity = Polarity.POSITIVE
    recall_semantics: RecallSemantics = RecallSemantics.DEFAULT
    trigger: dict[str, str] | None = None
    profile: bool = False
    is_correction: bool = False
    evidence: str = ""
    valid_from: datetime | None = None  # when the claim became true, if the text says (resolved dates)
    expires_at: datetime | None = None  # volatile facts ("in Tokyo this week")
    half_life_days: float | None = None


class Memory(BaseModel):
    """One governed memory (contract §2): a typed, scored, sourced, revisable claim."""

    model_config = ConfigDict(frozen=True)

    id: str
    tenant_id: str
    user_id: str
    agent_id: str | None = None
    visibility: Visibility = Visibility.USER
    workspace_id: str | None = None  # set: only reads in this workspace see it (migration 0015)
    text: str
    type: MemoryType
    topic: str
    importance: float = Field(ge=0.0, le=1.0)
    confidence: float = Field(ge=0.0, le=1.0)
    entity: str | None = None
    attribute: str | None = None
    value: str | None = None
    context: str | None = None
    polarity: Polarity = Polarity.POSITIVE
    sensitivity: str | None = None  # a `Sensitivity` value, set at write time; None = ordinary
    recall_semantics: RecallSemantics = RecallSemantics.DEFAULT
    trigger: dict[str, str] | None = None
    profile: bool = False
    source_role: Role = Role.USER
    source_session: str | None = None
    source_turn_ids: list[str] = Field(default_factory=list)
    evidence: str = ""
    trust: Trust = Trust.TRUSTED
    state: MemoryState = MemoryState.ACTIVE
    created_at: datetime
    valid_from: datetime
    valid_until: datetime | None = None
    superseded_by: str | None = None
    expires_at: datetime | None = None
    revoked_at: datetime | None = None
    last_confirmed: datetime | None = None
    last_accessed: datetime | None = None
    access_count: int = 0
    decay_score: float | None = None
    half_life_days: float | None = None
    # a later statement may have made this belief stale, and the rules could not decide (migration
    # 0013, `beliefs.supersession`): the newer memory's id, else the newer episode's, and when it was said
    possibly_superseded_by: str | None = None
    possibly_superseded_at: datetime | None = None

    @property
    def is_current(self) -> bool:
        """The current belief: active, not superseded, not revoked."""
        return self.state is MemoryState.ACTIVE and self.valid_until is None and self.revoked_at is None

    @property
    def private_to(self) -> str | None:
        """The agent whose private working memory this is ("" if it names none), or None when shared.

        A write only ever reconciles, contests or merges memories of its own `private_to`.
        """
        return (self.agent_id or "") if self.visibility is Visibility.AGENT else None

    @property
    def write_scope(self) -> tuple[str | None, str | None]:
        """(`private_to`, `workspace_id`): a write reconciles, contests or merges only memories of
        its own scope, so a workspace's beliefs never touch another's or the user's shared ones."""
        return (self.private_to, self.workspace_id)


class MemoryEvent(BaseModel):
    """One change of the belief state, published on `beliefstream.memory.events`."""

    model_config = ConfigDict(frozen=True)

    kind: EventKind
    memory_id: str
    tenant_id: str
    user_id: str
    at: datetime
    turn_id: str | None = None
    superseded_by: str | None = None
    entity: str | None = None
    attribute: str | None = None
    value: str | None = None
    polarity: Polarity = Polarity.POSITIVE  # negative: the event is about a retraction of `value`

    @classmethod
    def about(
        cls, kind: EventKind, memory: Memory, at: datetime | None = None, turn_id: str | None = None
    ) -> MemoryEvent:
        """The event of `memory` (as it is after the change); `at` defaults to its creation."""
        return cls(
            kind=kind,
            memory_id=memory.id,
            tenant_id=memory.tenant_id,
            user_id=memory.user_id,
            at=at or memory.created_at,
            turn_id=turn_id,
            superseded_by=memory.superseded_by,
            entity=memory.entity,
            attribute=memory.attribute,
            value=memory.value,
            polarity=memory.polarity,
        )


class Job(BaseModel):
    """What became of one retained turn (`GET /v1/jobs/{id}`)."""

    model_config = ConfigDict(frozen=True)

    job_id: str
    tenant_id: str
    user_id: str
    turn_id: str
    state: JobState
    memory_ids: list[str] = Field(default_factory=list)
    reason: str | None = None
    episode_id: str | None = None  # the turn kept as an episode (also when no memory was extracted)
    created_at: datetime
    updated_at: datetime
    agent_id: str | None = None  # the agent of the turn
    visibility: Visibility = Visibility.USER  # `agent`: a private turn, its job that agent's alone

    @property
    def private_to(self) -> str | None:
        """The agent whose private turn this was, or None for a shared one."""
        return self.agent_id if self.visibility is Visibility.AGENT else None


class DeadLetter(BaseModel):
    """A turn that could not be processed, as published on `beliefstream.turns.dlq` (built by
    `reading.dead_letter`, which redacts secrets first)."""

    model_config = ConfigDict(frozen=True)

    reason: str
    detail: str
    raw: str  # the original value, secrets redacted, decoded with replacement characters if not UTF-8
    key: str | None = None
    at: datetime = Field(default_factory=utcnow)
    source_topic: str | None = None
    source_partition: int | None = None
    source_offset: int | None = None
    redacted: list[str] = Field(default_factory=list)  # kinds of secrets removed from `raw` and `detail`


def job_id_for(tenant_id: str, turn_id: str) -> str:
    """Deterministic job id of a turn: the same turn delivered twice is the same job."""
    return str(uuid.uuid5(ID_NAMESPACE, f"job\x1f{tenant_id}\x1f{turn_id}"))


def memory_id_for(tenant_id: str, turn_id: str, claim_key: str) -> str:
    """Deterministic memory id from (tenant, source turn, claim), so replays are idempotent."""
    return str(uuid.uuid5(ID_NAMESPACE, f"memory\x1f{tenant_id}\x1f{turn_id}\x1f{claim_key}"))


class AuditedRead(BaseModel):
    """One item a recall returned, as audited: which, what kind, its score and why it was recalled."""

    model_config = ConfigDict(frozen=True)

    id: str
    kind: Literal["memory", "episode"]
    score: float
    reason: str


class WithheldRead(BaseModel):
    """A candidate a recall left out, as audited, and why (policy, currency, floor, budget...)."""

    model_config = ConfigDict(frozen=True)

    id: str
    why: str


class RecallAudit(BaseModel):
    """One recall, as audited (SQL `recall_audit`, topic `beliefstream.recall.audit`).

    Says who read which memories and quoted episodes, and when, with each item's score and reason in
    the order returned (`returned`) and what was left out and why (`withheld`), so a wrong answer
    can be told apart as a ranking miss or an ignored recall; never the API key (only its
    fingerprint) and never the query text (only its sha256), so the audit trail is not a second
    copy of the conversation.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    tenant_id: str
    user_id: str
    agent_id: str | None = None
    key_id: str | None = None
    at: datetime
    query_digest: str
    memory_ids: list[str] = Field(default_factory=list)
    episode_ids: list[str] = Field(default_factory=list)  # the quotes returned
    returned: list[AuditedRead] = Field(default_factory=list)  # migration 0016
    withheld: list[WithheldRead] = Field(default_factory=list)  # migration 0016
