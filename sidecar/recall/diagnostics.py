"""What a recall with `diagnostics` adds to its answer: where each returned memory came from, the
candidates kept out and why, and the run itself (candidate counts, dates read, the trust policy).

None of it changes what is recalled; it is there to explain the answer (contract §3).
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field, model_validator

from sidecar.recall.exclusions import reason_of


class CandidateSources(BaseModel):
    """Where a returned memory came from (diagnostics only); ranks are 1-based."""

    dense_rank: int | None = None
    dense_score: float | None = None
    keyword_rank: int | None = None
    keyword_score: float | None = Field(default=None, description="keyword score over this query's best")
    relevance: float = Field(default=0.0, description="cosine and keyword similarity, weighted, in [0, 1]")
    linked: bool = Field(default=False, description="linked to an entity or a time the query names")


class SuppressedView(BaseModel):
    """A candidate kept out of the answer: `why` in words, `reason` as a code (`exclusions.reason_of`)."""

    id: str
    why: str
    reason: str = Field(
        default="",
        description="similarity_floor, token_budget, limit, profile_full, shown_as_context, carried_as_evidence "
        "(a quote carried on the belief drawn from its turn), folded (a belief said in full by a returned item of "
        "its own turn), framing, live_intent, "
        "domain, sensitive, superseded, conflict, context, topic, untrusted, confidence_floor, not_current, "
        "filter, not_selected or other",
    )

    @model_validator(mode="after")
    def _coded(self) -> SuppressedView:
        if not self.reason:
            self.reason = reason_of(self.why)
        return self


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
    asked_similarity: float | None = Field(
        default=None,
        description="the cosine at which a special-category fact is what the question asks about: it is recalled "
        "whatever domains the request is read to be in (measured: bench/recall_floor.py --sensitive)",
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
