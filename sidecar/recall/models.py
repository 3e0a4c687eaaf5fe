"""`POST /v1/recall` in and out (contract §3), also what `RecallService.recall` takes and returns.

The request forbids unknown fields: a misspelt `agent_id` must fail, not silently change scope.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from beliefs.episodes import Episode
from beliefs.records import MAX_ID_LENGTH, MemoryType, Polarity, Role, Sensitivity, as_utc
from sidecar.recall.config import PRESETS
from sidecar.recall.exclusions import reason_of
from sidecar.recall.policy import Conflict, RequestedAction
from sinks.recall import OpenContest

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


class CandidateSources(BaseModel):
    """Where a returned memory came from (diagnostics only); ranks are 1-based."""

    dense_rank: int | None = None
    dense_score: float | None = None
    keyword_rank: int | None = None
    keyword_score: float | None = Field(default=None, description="keyword score over this query's best")
    relevance: float = Field(default=0.0, description="cosine and keyword similarity, weighted, in [0, 1]")
    linked: bool = Field(default=False, description="linked to an entity or a time the query names")


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
    note: str | None = None


ConflictKind = Literal["contradiction", "contested"]

CONTRADICTION_WHY = "contradicting current memories: the stronger (confidence, then recency) is recalled"
CONTESTED_WHY = (
    "contested: awaiting a decision (GET /v1/contested, POST /v1/contested/{id}/resolve); "
    "no value of it is recalled"
)


class ConflictValue(BaseModel):
    """One side of a conflict: a value, the context it was said for, and the memory that says it."""

    memory_id: str
    value: str | None
    context: str | None = None
    polarity: Polarity = Polarity.POSITIVE


class ConflictView(BaseModel):
    """One entry of `conflicts`, one shape for both kinds.

    `contradiction`: two current memories disagree; the stronger (`kept_*`) is recalled, the other
    (`dropped_*`) is not. `contested`: the attribute is in a contradiction loop awaiting a decision
    (`contested_id`, for `POST /v1/contested/{id}/resolve`); none of its `values` is recalled, so
    `kept_*` and `dropped_*` are null. `values` lists the competing values either way.
    """

    kind: ConflictKind
    entity: str
    attribute: str
    context: str | None = None
    values: list[ConflictValue] = Field(description="the competing values; a contradiction's kept one first")
    kept_id: str | None = None
    kept_value: str | None = None
    dropped_id: str | None = None
    dropped_value: str | None = None
    contested_id: str | None = None
    why: str

    @classmethod
    def of_contradiction(cls, conflict: Conflict) -> ConflictView:
        sides = [
            (conflict.kept_id, conflict.kept_value, conflict.kept_polarity),
            (conflict.dropped_id, conflict.dropped_value, conflict.dropped_polarity),
        ]
        values = [ConflictValue(memory_id=i, value=v, context=conflict.context, polarity=p) for i, v, p in sides]
        fields = conflict.model_dump(exclude={"kept_polarity", "dropped_polarity"})
        return cls(kind="contradiction", values=values, why=CONTRADICTION_WHY, **fields)

    @classmethod
    def of_contest(cls, contest: OpenContest) -> ConflictView:
        values = [
            ConflictValue(memory_id=m.id, value=m.value, context=m.context, polarity=m.polarity)
            for m in contest.memories
        ]
        return cls(
            kind="contested",
            entity=contest.entity,
            attribute=contest.attribute,
            values=values,
            contested_id=contest.contested_id,
            why=CONTESTED_WHY,
        )


class ConfirmationView(BaseModel):
    """A live instruction that asks for what a standing constraint forbids: confirm before acting.

    The constraint is still recalled; the instruction is never silently obeyed over it.
    """

    memory_id: str = Field(description="the constraint")
    text: str
    instruction: str = Field(description="what in the request goes against it")
    why: str = "a live instruction contradicts a standing constraint: confirm with the user before acting"


class SuppressedView(BaseModel):
    """A candidate kept out of the answer: `why` in words, `reason` as a code (`exclusions.reason_of`)."""

    id: str
    why: str
    reason: str = Field(
        default="",
        description="similarity_floor, token_budget, limit, profile_full, shown_as_context, framing, live_intent, "
        "domain, sensitive, superseded, conflict, context, topic, untrusted, confidence_floor, not_current, "
        "filter, not_selected or other",
    )

    @model_validator(mode="after")
    def _coded(self) -> SuppressedView:
        if not self.reason:
            self.reason = reason_of(self.why)
        return self


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


class TrustPolicyView(BaseModel):
    """The trust policy this recall applied (diagnostics)."""

    similarity_floor: float = Field(
        description="cosine under which a candidate is not relevant (measured: bench/recall_floor.py); importance "
        "never lifts one over it"
    )
    keyword_similarity_floor: float | None = Field(
        default=None,
        description="the same floor for a candidate the keyword search found or whose entity, attribute or "
        "topic the query names",
    )
    speaks_of_user: bool | None = Field(
        default=None,
        description="whether the query speaks of its user (a first-person word, a name the user's memories hold, "
        "or an action the caller names); when not, `impersonal_similarity_floor` applies to every candidate",
    )
    impersonal_similarity_floor: float | None = Field(
        default=None,
        description="the floor of every candidate of a query that speaks of no one of the user's, whatever words "
        "or links it shares with the query (measured: bench/recall_floor.py)",
    )
    floor_bypass_importance: float | None = Field(
        default=None, description="always null: no importance lifts a memory over the similarity floor any more"
    )
    confidence_floor: float = Field(description="confidence under which a belief or a quote is not recalled")
    framing_cap: float = Field(description="the confidence of a hypothetical, rhetorical or sarcastic quote")
    beliefs_admitted: list[str] = Field(description="trust buckets of beliefs recalled")
    quotes_admitted: list[str] = Field(description="trust buckets of quotes recalled (include_untrusted_evidence)")
    sensitive_admitted: list[str] = Field(description="sensitive categories admitted outside their domain")
    request_domains: list[str] = Field(description="the domains the request is read to be in")
    superseded_episodes: str = Field(description="label or suppress")
    exclusions: dict[str, int] = Field(default_factory=dict, description="candidates kept out, by reason")


class RecallDiagnostics(BaseModel):
    preset: str
    terms: list[str] = Field(description="the words the keyword search used")
    dense_candidates: int
    keyword_candidates: int
    stale_candidates: int = Field(
        description="index hits the SQL store did not confirm as current and in scope"
    )
    degraded: list[str] = Field(default_factory=list, description="candidate sources that failed")
    episode_dense_candidates: int = 0
    episode_keyword_candidates: int = 0
    named_speakers: list[str] = Field(default_factory=list, description="speakers the query names")
    time_window: list[datetime] | None = Field(default=None, description="[start, end) of the dates the query names")
    ignored_dates: list[str] = Field(
        default_factory=list,
        description="dates the query names that the calendar (years 1 to 9999) cannot hold, counted from "
        "`dates_relative_to` or now: passed over, never an error",
    )
    superseded_episodes: list[SuppressedView] = Field(
        default_factory=list, description="episodes whose belief is no longer current: labelled or suppressed, and why"
    )
    trust_policy: TrustPolicyView | None = Field(default=None, description="the trust policy applied")


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
