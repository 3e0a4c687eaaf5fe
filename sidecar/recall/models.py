"""`POST /v1/recall` in and out (contract §3), also what `RecallService.recall` takes and returns.

The request forbids unknown fields: a misspelt `agent_id` must fail, not silently change scope.
The answer's conflicts are `conflict_view`'s; what diagnostics add is `diagnostics`'.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from beliefs.episodes import Episode
from beliefs.records import MAX_ID_LENGTH, MemoryType, Polarity, Role, Sensitivity, as_utc
from sidecar.recall.config import PRESETS
from sidecar.recall.conflict_view import ConflictView
from sidecar.recall.diagnostics import CandidateSources, RecallDiagnostics, SuppressedView
from sidecar.recall.policy import RequestedAction

Identifier = Annotated[str, Field(min_length=1, max_length=MAX_ID_LENGTH)]
Name = Annotated[str, Field(min_length=1, max_length=128)]

MAX_QUERY_CHARS = 4000
MAX_BUDGET_TOKENS = 32_000
MAX_LIMIT = 100
MAX_LIVE_INTENT = 32

Format = Literal["json", "prompt"]
SensitiveCategory = Literal["all", "health", "religion", "sexuality", "politics", "finances", "location"]
Certainty = Literal["firm", "old", "weak"]


class ActionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Name
    domain: Name | None = None

    def requested(self) -> RequestedAction:
        return RequestedAction(self.action, self.domain)


class RecallRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user_id: Identifier
    query: str = Field(
        default="", max_length=MAX_QUERY_CHARS, description="empty: profile and constraints only"
    )
    agent_id: Identifier | None = Field(
        default=None, description="the key decides: a bound key's agent only; a tenant key needs `agents` (else 403)"
    )
    budget_tokens: int = Field(default=800, ge=1, le=MAX_BUDGET_TOKENS)
    limit: int = Field(default=20, ge=1, le=MAX_LIMIT)
    live_intent: dict[Name, Annotated[str, Field(max_length=1000)]] = Field(
        default_factory=dict,
        max_length=MAX_LIVE_INTENT,
        description="attribute → value the user just asked for",
    )
    topic: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    action: ActionIn | None = None
    diagnostics: bool = False
    preset: Name | None = Field(default=None, description="balanced (default), precise or recent")
    format: Format = Field(
        default="json", description='"prompt" also returns `prompt`: a ready-to-insert <beliefstream-memories> block'
    )
    include_sensitive: list[SensitiveCategory] = Field(
        default_factory=list,
        max_length=len(Sensitivity) + 1,
        description="sensitive categories to recall outside their domain (health, ..., or all)",
    )
    since: datetime | None = Field(default=None, description="only memories whose valid_from (quotes: said_at) is at or after this")
    until: datetime | None = Field(default=None, description="only memories whose valid_from (quotes: said_at) is at or before this")
    types: list[MemoryType] | None = Field(default=None, min_length=1, max_length=4, description="only these types")
    topics: list[Annotated[str, Field(min_length=1, max_length=64)]] | None = Field(
        default=None, min_length=1, max_length=32, description="only these topics (unlike `topic`, no context rule)"
    )
    agent: Identifier | None = Field(default=None, description="only memories written by this agent (agent_id)")
    workspace_id: Identifier | None = Field(
        default=None,
        description="the caller's workspace: its memories and quotes beside those of no workspace; "
        "absent: those of no workspace only",
    )

    @model_validator(mode="after")
    def _range(self) -> RecallRequest:
        if self.since is not None and self.until is not None and as_utc(self.until) < as_utc(self.since):
            raise ValueError("until is before since: the time range is empty")
        return self
    episodes: bool = Field(default=True, description="also quote what was said (episodes) beside the beliefs")
    context_turns: int = Field(
        default=1, ge=0, le=3, description="neighbouring turns of the session included with each quoted episode"
    )
    include_untrusted_evidence: bool = Field(
        default=False, description="also quote caution (assistant) and untrusted (pasted, tool) episodes"
    )
    superseded_episodes: Literal["label", "suppress"] = Field(
        default="suppress",
        description="an episode whose belief is no longer current (superseded, revoked, contested): "
        "left out (default), or returned labelled `superseded`",
    )
    dates_relative_to: datetime | None = Field(
        default=None, description="read relative dates in the query ('last May') against this instead of now"
    )

    @field_validator("since", "until")
    @classmethod
    def _in_utc(cls, value: datetime | None) -> datetime | None:
        """Read in UTC (a date without a zone already is); a moment whose UTC reading falls outside
        the calendar (0001-01-01T00:00+05:00 is in year 0) is a 422, never a failed comparison later."""
        if value is None:
            return None
        try:
            return as_utc(value)
        except OverflowError:
            raise ValueError("is outside the calendar (years 1 to 9999) once read in UTC") from None

    @field_validator("dates_relative_to")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        """A date without a zone is read as UTC, like every other time of the contract."""
        return value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value

    @field_validator("preset")
    @classmethod
    def _known_preset(cls, value: str | None) -> str | None:
        if value is not None and value not in PRESETS:
            raise ValueError(f"must be one of: {', '.join(PRESETS)}")
        return value


class EpisodeTurn(BaseModel):
    """A neighbouring turn quoted with an episode, or with the quote a belief carries (`context_turns`)."""

    turn_id: str
    speaker: str | None = None
    role: Role
    said_at: datetime
    text: str

    @classmethod
    def of(cls, episode: Episode) -> EpisodeTurn:
        return cls(**episode.model_dump(include={"turn_id", "speaker", "role", "said_at", "text"}))


class QuoteEvidence(EpisodeTurn):
    """A turn a recalled belief was drawn from, quoted as said: the belief's evidence, not an item."""

    episode_id: str
    session_id: str | None = None

    @classmethod
    def of(cls, episode: Episode) -> QuoteEvidence:
        fields = {"turn_id", "speaker", "role", "said_at", "text", "session_id"}
        return cls(episode_id=episode.id, **episode.model_dump(include=fields))


class RecalledMemory(BaseModel):
    """A recalled belief, or (`type: "episode"`) a dated, attributed quote of what was said."""

    id: str
    text: str
    type: MemoryType | Literal["episode"]
    confidence: float
    effective_confidence: float
    score: float
    recall_reason: str
    citations: list[str] = Field(
        description="the turn ids the memory was learnt from; an episode cites its own turn first, then the "
        "neighbouring turns of `context`, the more relevant to the query first"
    )
    valid_from: datetime
    trust: str = Field(default="trusted", description="trusted or caution (untrusted is never recalled)")
    source_role: Role = Field(default=Role.USER, description="who said it")
    recalled_at: datetime | None = Field(default=None, description="when this recall ran")
    last_confirmed: datetime | None = Field(default=None, description="when the belief was last said again")
    needs_confirmation: bool = Field(
        default=False, description="an important belief unconfirmed for half its half-life: worth asking again"
    )
    certainty: Certainty = Field(
        default="firm", description="firm; old (well supported, only not confirmed lately); weak"
    )
    polarity: Polarity = Polarity.POSITIVE
    sensitivity: str | None = Field(default=None, description="special category, when the memory is one")
    sources: CandidateSources | None = Field(default=None, description="with diagnostics")
    said_at: datetime | None = Field(
        default=None, description="episodes: when it was said; beliefs: when the first quote of `evidence` was"
    )
    speaker: str | None = Field(default=None, description="episodes: who said it (metadata.speaker)")
    role: Role | None = Field(default=None, description="episodes: user, or assistant/tool (never a claim about the user)")
    session_id: str | None = None
    context: list[EpisodeTurn] = Field(default_factory=list, description="neighbouring turns included: of an episode, or of the quote a belief carries as its evidence")
    evidence: list[QuoteEvidence] = Field(
        default_factory=list,
        description="beliefs: the turns it was drawn from that this recall also found, quoted as said (oldest "
        "first). One item per fact: such a quote is carried here, not returned as a second item, and costs no "
        "budget of its own",
    )
    superseded: bool = Field(
        default=False,
        description="episodes: a later statement replaced it, or the belief it stated is no longer current",
    )
    possibly_superseded: bool = Field(
        default=False,
        description="a later statement of the user may have replaced it (the rules could not decide): "
        "not current; the newer item is `superseded_by`, said at `superseded_at`",
    )
    superseded_by: str | None = Field(
        default=None, description="the newer memory or episode that replaced (or may have replaced) it"
    )
    superseded_at: datetime | None = Field(default=None, description="when that newer statement was said")
    folded_beliefs: list[str] = Field(
        default_factory=list,
        description="episodes: the beliefs drawn from this turn alone that the quote says in full, with more; "
        "beliefs: the beliefs drawn from the same turn alone that this one says in full (their quotes, if carried, "
        "move here); one item per fact: they are not returned beside it (their ids are in the diagnostics' "
        "suppressed, reason folded)",
    )
    note: str | None = None


class ConfirmationView(BaseModel):
    """A live instruction that asks for what a standing constraint forbids: confirm before acting.

    The constraint is still recalled; the instruction is never silently obeyed over it.
    """

    memory_id: str = Field(description="the constraint")
    text: str
    instruction: str = Field(description="what in the request goes against it")
    why: str = "a live instruction contradicts a standing constraint: confirm with the user before acting"


NoteKind = Literal["live_intent_override", "possibly_superseded", "superseded", "needs_confirmation"]


class NoteView(BaseModel):
    """A discrepancy for the assistant to act on: say it, or confirm it with the user.

    `live_intent_override`: a live instruction overrides a stored default (`text`), which is left out of
    `memories` this time: ask whether it is a one-off or the new default. `possibly_superseded` /
    `superseded`: a returned item a later statement may have replaced (or did): the older value, not
    to be taken as current. `needs_confirmation`: an important belief unconfirmed for half its half-life.
    """

    kind: NoteKind
    memory_id: str = Field(description="the stored item the note is about (a belief or an episode)")
    text: str = Field(description="that item's text")
    note: str


class RecallResult(BaseModel):
    memories: list[RecalledMemory] = Field(description="in prompt order")
    conflicts: list[ConflictView] = Field(default_factory=list)
    confirmations: list[ConfirmationView] = Field(
        default_factory=list, description="live instructions against a constraint, to confirm with the user"
    )
    notes: list[NoteView] = Field(
        default_factory=list,
        description="discrepancies to say or confirm: a live instruction overriding a stored default, an item "
        "possibly replaced by a later statement, an important belief unconfirmed for long",
    )
    prompt: str | None = Field(default=None, description='with format "prompt": the block to insert')
    suppressed: list[SuppressedView] = Field(default_factory=list, description="with diagnostics only")
    tokens_used: int = 0
    diagnostics: RecallDiagnostics | None = None
