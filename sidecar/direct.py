"""The direct insert (`POST /v1/memories`): its body, and the memory that body becomes.

A direct insert skips extraction, not governance: a secret in the text or the slot is refused (as
extraction drops any claim touching one) and the evidence is redacted, like every write path. The body is a claim as an extractor would state
it, so the memory is built by the write path's own `memory_from_claim`: the same trust rule (only
the user's confident words are trusted), the same half-lives, the same scope. The tenant comes from
the API key; an agent-bound key writes as its agent. Confidence and importance have no defaults: a
memory written without saying how sure it is would get everything's default, which is the failure
this schema exists to prevent.

Caller-supplied `confidence` and `source_role` are compatibility signals, not authority: a direct
insert needs the `manage` capability, and without `admin` the memory is stored `caution` with its
confidence capped at `UNVERIFIED_CONFIDENCE` (at most), so it is recalled as weaker evidence and
can never supersede, contest or strengthen a trusted belief. Only a key holding `admin` writes a
trusted memory directly (migrations, seeding).

The id is deterministic from (tenant, user, agent, `memory_key` or the normalized claim), so a
retried POST finds the memory it stored instead of storing it twice.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from beliefs.bounds import (
    MAX_EVIDENCE_CHARS,
    MAX_MEMORY_TEXT_CHARS,
    MAX_NAME_LENGTH,
    MAX_SOURCE_TURN_IDS,
    MAX_TOPIC_CHARS,
    MAX_TRIGGER_CHARS,
    MAX_TRIGGER_ITEMS,
)
from beliefs.confidence import UNVERIFIED_CONFIDENCE
from beliefs.records import (
    Claim,
    Memory,
    MemoryType,
    Polarity,
    RecallSemantics,
    Role,
    Trust,
    Turn,
    Visibility,
    as_utc,
    memory_id_for,
)
from reading.prepare import claim_key, memory_from_claim
from reading.secrets import redact_secrets
from sidecar.auth import Capability, Principal
from sidecar.errors import BadRequest, Forbidden
from sidecar.schemas import Identifier, StorableText

#: The turn component of a direct memory's id: no turn said it, so the scope takes its place.
DIRECT_SCOPE = "direct"

Name = Annotated[StorableText, Field(min_length=1, max_length=MAX_NAME_LENGTH)]
TriggerPart = Annotated[StorableText, Field(min_length=1, max_length=MAX_TRIGGER_CHARS)]


class MemoryIn(BaseModel):
    """A fully specified memory (contract §2 fields a writer may set); unknown fields are refused."""

    model_config = ConfigDict(extra="forbid")

    memory_key: Identifier | None = Field(
        default=None, description="idempotency key within the user; default: the normalized claim"
    )
    tenant_id: Identifier | None = Field(default=None, description="must equal the key's tenant when given")
    user_id: Identifier
    agent_id: Identifier | None = Field(default=None, description="an agent-bound key writes as its agent")
    visibility: Visibility = Visibility.USER
    text: StorableText = Field(
        min_length=1, max_length=MAX_MEMORY_TEXT_CHARS, description="one or two self-contained sentences"
    )
    type: MemoryType
    topic: StorableText = Field(min_length=1, max_length=MAX_TOPIC_CHARS)
    importance: float = Field(ge=0.0, le=1.0)
    confidence: float = Field(ge=0.0, le=1.0)
    entity: Name | None = None
    attribute: Name | None = None
    value: StorableText | None = Field(default=None, min_length=1, max_length=MAX_MEMORY_TEXT_CHARS)
    context: Name | None = None
    polarity: Polarity = Field(
        default=Polarity.POSITIVE, description="negative: the slot does not (or no longer) hold the value"
    )
    recall_semantics: RecallSemantics = RecallSemantics.DEFAULT
    trigger: dict[TriggerPart, TriggerPart] | None = Field(
        default=None, max_length=MAX_TRIGGER_ITEMS, description="constraints only: {action, domain}"
    )
    profile: bool = False
    source_role: Role = Field(default=Role.USER, description="who said it; decides trust with confidence")
    source_session: Identifier | None = None
    source_turn_ids: list[Identifier] = Field(default_factory=list, max_length=MAX_SOURCE_TURN_IDS)
    evidence: StorableText = Field(default="", max_length=MAX_EVIDENCE_CHARS)
    valid_from: datetime | None = Field(default=None, description="when it became true; default now")
    expires_at: datetime | None = None
    half_life_days: float | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _consistent(self) -> MemoryIn:
        """Field combinations reconcile and recall could not make sense of."""
        if not self.text.strip():
            raise ValueError("text must not be blank")
        if self.attribute is not None and self.entity is None:
            raise ValueError("attribute needs an entity (whose attribute it is)")
        if self.value is not None and self.attribute is None:
            raise ValueError("value needs an attribute (what it is the value of)")
        if self.trigger is not None and self.recall_semantics is not RecallSemantics.CONSTRAINT:
            raise ValueError("trigger applies only to recall_semantics 'constraint'")
        if self.valid_from and self.expires_at and as_utc(self.expires_at) <= as_utc(self.valid_from):
            raise ValueError("expires_at must be after valid_from")
        return self


def direct_memory(principal: Principal, body: MemoryIn, now: datetime) -> Memory:
    """The memory `body` asks for, in the key's scope and authority; `Forbidden`/`BadRequest` when it cannot be."""
    if body.tenant_id is not None and body.tenant_id != principal.tenant_id:
        raise Forbidden("tenant_id is not the tenant of this API key")
    agent_id = principal.acting_agent(body.agent_id)
    if body.visibility is Visibility.AGENT and agent_id is None:
        raise BadRequest("visibility 'agent' needs an agent_id (or an agent-bound key)")
    for name in ("text", "value", "entity", "context"):
        if kinds := redact_secrets(getattr(body, name) or "")[1]:
            raise BadRequest(f"{name} holds a secret ({', '.join(kinds)}); secrets are never stored as memories")
    body = body.model_copy(update={"evidence": redact_secrets(body.evidence)[0]})
    said_at = as_utc(body.valid_from) if body.valid_from else now
    if body.expires_at is not None and as_utc(body.expires_at) <= said_at:
        raise BadRequest(
            "expires_at is not after valid_from (now, when not given): the memory would never hold"
        )
    claim = Claim(
        **body.model_dump(
            include={"text", "type", "topic", "importance", "confidence", "entity", "attribute", "value"}
            | {"context", "polarity", "recall_semantics", "trigger", "profile", "evidence", "half_life_days"}
        ),
        valid_from=said_at,
        expires_at=as_utc(body.expires_at) if body.expires_at else None,
    )
    turn = Turn(
        turn_id=body.source_turn_ids[0] if body.source_turn_ids else DIRECT_SCOPE,
        tenant_id=principal.tenant_id,
        user_id=body.user_id,
        agent_id=agent_id,
        session_id=body.source_session,
        role=body.source_role,
        text=body.evidence or body.text,
        ts=said_at,
    )
    scope = "\x1f".join((DIRECT_SCOPE, body.user_id, agent_id or ""))
    memory = memory_from_claim(turn, claim, now)
    memory = memory.model_copy(
        update={
            "id": memory_id_for(principal.tenant_id, scope, body.memory_key or claim_key(claim)),
            "visibility": body.visibility,
            "source_turn_ids": list(body.source_turn_ids),
        }
    )
    return memory if principal.can(Capability.ADMIN) else unverified(memory)


def unverified(memory: Memory) -> Memory:
    """A caller's claim without authority: at most `caution`, confidence at most `UNVERIFIED_CONFIDENCE`."""
    trust = Trust.CAUTION if memory.trust is Trust.TRUSTED else memory.trust
    return memory.model_copy(
        update={"trust": trust, "confidence": min(memory.confidence, UNVERIFIED_CONFIDENCE)}
    )


def same_claim(stored: Memory, wanted: Memory) -> bool:
    """Does the stored memory under `wanted.id` say what `wanted` says? (A reused key may not.)"""
    fields = ("user_id", "agent_id", "text", "type", "entity", "attribute", "value", "context", "polarity")
    return all(getattr(stored, name) == getattr(wanted, name) for name in fields)
