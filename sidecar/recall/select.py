"""From hydrated candidates to the recalled block: the pure heart of recall.

Order of the gates: defensive currency/scope re-check, similarity gate, eligibility (matched,
profile block, fired constraint), live intent, contexts, topic, conflicts, scoring, budget,
edge-weighted order. Open contested slots are reported beside the conflicts, never recalled.
Selection priority: fired constraints, then the profile block, then the rest by `recall_score`;
prompt prominence: fired constraints, then everything else by `recall_score`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from beliefs.attributes import is_single_valued
from beliefs.reconcile import normalize_value
from beliefs.records import Memory
from sidecar.recall import policy
from sidecar.recall import sensitivity as sensitive
from sidecar.recall.budget import edge_order, estimate_tokens, trim
from sidecar.recall.config import RecallConfig
from sidecar.recall.floor import similarity_floor
from sidecar.recall.freshness import certainty, needs_confirmation
from sidecar.recall.fusion import Signals
from sidecar.recall.models import (
    CandidateSources,
    ConfirmationView,
    ConflictView,
    RecalledMemory,
    RecallRequest,
    RecallResult,
    SuppressedView,
)
from sidecar.recall.scoring import Score, recall_score
from sinks.recall import OpenContest, RecallScope

CONSTRAINT, PROFILE, RANKED = 0, 1, 2


@dataclass
class Entry:
    memory: Memory
    tier: int
    reasons: list[str]
    relevance: float = 0.0
    score: Score = Score(0.0, 0.0, 0.0, 0.0, 0.0)

    def rank_key(self) -> tuple:
        return (self.tier, -self.score.value, self.memory.id)


@dataclass(frozen=True)
class Selection:
    chosen: list[Entry]  # prompt order
    conflicts: list[policy.Conflict]
    contests: list[OpenContest] = field(default_factory=list)
    suppressed: list[tuple[str, str]] = field(default_factory=list)  # (id, why)
    tokens_used: int = 0
    dropped_stale: int = 0  # hydrated rows that failed the re-check (never listed: maybe not the caller's)
    confirmations: list[tuple[Memory, str]] = field(default_factory=list)  # (constraint, live instruction)
    now: datetime | None = None


def select(
    request: RecallRequest,
    config: RecallConfig,
    now: datetime,
    scope: RecallScope,
    signals: dict[str, Signals],
    hydrated: Sequence[Memory],
    pinned: Sequence[Memory],
    contests: Sequence[OpenContest] = (),
) -> Selection:
    suppressed: dict[str, str] = {}
    pool: dict[str, Memory] = {}
    stale = 0
    for memory in [*hydrated, *pinned]:
        if memory.id in pool:
            continue
        if policy.out_of_scope(memory, scope) or policy.currency_violation(memory, now, config.confidence_floor):
            stale += 1
            continue
        pool[memory.id] = memory

    action = policy.requested_action(request.action.requested() if request.action else None, request.query)
    domains = sensitive.request_domains(request.query, action.domain if action else None, request.topic)
    for memory_id, memory in list(pool.items()):
        why = sensitive.sensitive_outside(memory, domains, request.include_sensitive)
        if why is not None:
            del pool[memory_id]
            suppressed[memory_id] = why
    entries: dict[str, Entry] = {}
    matched: list[Memory] = []
    for memory in pool.values():
        reasons: list[str] = []
        tier = RANKED
        if action is not None and policy.fires(memory, action, domains):
            tier = CONSTRAINT
            reasons.append(f"constraint triggered by {action.describe()}")
        elif policy.overridden_by(memory, request.live_intent, request.query) is not None:
            tier = CONSTRAINT
            reasons.append("constraint on what the live instruction asks for")
        elif sensitive.safety_fires(memory, domains):
            tier = CONSTRAINT
            reasons.append(f"safety fact for a {'/'.join(sorted(domains & sensitive.SAFETY_DOMAINS))} request")
        elif memory.profile:
            tier = PROFILE
            reasons.append("profile fact")
        found = signals.get(memory.id)
        relevance = 0.0
        if found is not None:
            floor = similarity_floor(memory.importance, found, config)
            if not floor.passes:
                if tier == RANKED:
                    suppressed[memory.id] = floor.why or ""
            else:
                relevance = found.relevance
                reasons.append(f"matched query ({found.sources})" if floor.why is None else floor.why)
                matched.append(memory)
        if reasons:
            entries[memory.id] = Entry(memory, tier, reasons, relevance)

    live = policy.live_intent_attributes(request.live_intent)
    yielded = {m.id for m in pool.values() if policy.yields_to_live_intent(m, live)}
    for memory_id in yielded:
        entries.pop(memory_id, None)
        suppressed[memory_id] = f"live intent sets {pool[memory_id].attribute}"

    named = policy.named_contexts(request.topic, request.live_intent, request.query)
    mismatched = policy.context_mismatches((m for m in pool.values() if m.id not in yielded), named)
    for memory_id, why in mismatched.items():
        loser = entries.pop(memory_id, None)
        suppressed[memory_id] = why
        if loser is not None:
            _promote_context_mate(loser, pool, mismatched, yielded, entries, suppressed)

    _narrow_to_topic(request.topic, named, matched, entries, suppressed)

    contenders = [m for m in pool.values() if m.id not in yielded and m.id not in mismatched]
    conflicts = [c for c in policy.resolve_conflicts(contenders).values() if _touches(c, entries)]
    for conflict in conflicts:
        loser = entries.pop(conflict.dropped_id, None)
        suppressed[conflict.dropped_id] = f"conflicts with the stronger {conflict.kept_id}"
        if conflict.kept_id not in entries:  # a slot-mate the query did not match wins its slot
            suppressed.pop(conflict.kept_id, None)
            relevance = loser.relevance if loser else 0.0
            entries[conflict.kept_id] = Entry(
                pool[conflict.kept_id], RANKED, ["stronger value of a conflicting pair"], relevance
            )
        else:
            winner = entries[conflict.kept_id]
            winner.relevance = max(winner.relevance, loser.relevance if loser else 0.0)

    for entry in entries.values():
        entry.score = recall_score(entry.memory, entry.relevance, now, config)

    ordered = sorted(entries.values(), key=Entry.rank_key)
    profile = [e for e in ordered if e.tier == PROFILE]
    for entry in profile[config.profile_limit :]:
        if len(entry.reasons) > 1:  # also matched the query: competes as a ranked memory
            entry.tier = RANKED
        else:
            entries.pop(entry.memory.id)
            suppressed[entry.memory.id] = "profile block full"
    ordered = sorted(entries.values(), key=Entry.rank_key)

    trimmed = trim(ordered, lambda e: estimate_tokens(e.memory.text), request.budget_tokens, request.limit)
    for entry in trimmed.over_budget:
        suppressed[entry.memory.id] = "over the token budget"
    for entry in trimmed.over_limit:
        suppressed[entry.memory.id] = "over the limit"
    prominence = sorted(trimmed.kept, key=lambda e: (e.tier != CONSTRAINT, -e.score.value, e.memory.id))
    confirmations = [
        (e.memory, instruction)
        for e in prominence
        if (instruction := policy.overridden_by(e.memory, request.live_intent, request.query)) is not None
    ]
    return Selection(
        confirmations=confirmations,
        now=now,
        chosen=edge_order(prominence),
        conflicts=conflicts,
        contests=policy.open_contests(contests, scope, now, config.confidence_floor),
        suppressed=list(suppressed.items()),
        tokens_used=trimmed.tokens_used,
        dropped_stale=stale,
    )


def _promote_context_mate(
    loser: Entry,
    pool: dict[str, Memory],
    mismatched: dict[str, str],
    yielded: set[str],
    entries: dict[str, Entry],
    suppressed: dict[str, str],
) -> None:
    """The query matched another context's value: its mate for this request's context takes its place."""
    lost = loser.memory
    for mate in pool.values():
        if mate.id in mismatched or mate.id in yielded or (mate.entity, mate.attribute) != (lost.entity, lost.attribute):
            continue
        if mate.id in entries:
            entries[mate.id].relevance = max(entries[mate.id].relevance, loser.relevance)
        else:
            suppressed.pop(mate.id, None)
            entries[mate.id] = Entry(mate, RANKED, ["value for this request's context"], loser.relevance)


def _narrow_to_topic(
    topic: str | None,
    named: frozenset[str],
    matched: Sequence[Memory],
    entries: dict[str, Entry],
    suppressed: dict[str, str],
) -> None:
    """Drop the entries outside `topic` (`policy.outside_topic`), except values of a slot that a match
    inside it opened: they answer the question asked in the topic (so do conflict winners, which
    only a kept entry brings in, after this)."""
    if topic is None:
        return
    opened = {_slot(m) for m in matched if policy.outside_topic(m, topic, named) is None} - {None}
    for memory_id, entry in list(entries.items()):
        why = policy.outside_topic(entry.memory, topic, named)
        if why is not None and _slot(entry.memory) not in opened:
            del entries[memory_id]
            suppressed[memory_id] = why


def _slot(memory: Memory) -> tuple[str, str] | None:
    """The single-valued slot a memory fills (its values answer one question), else None."""
    if not memory.entity or not memory.attribute or not is_single_valued(memory.attribute):
        return None
    return (normalize_value(memory.entity), memory.attribute)


def _touches(conflict: policy.Conflict, entries: dict[str, Entry]) -> bool:
    """Only conflicts involving something recall would return matter; the rest are not this query's."""
    return conflict.kept_id in entries or conflict.dropped_id in entries


def to_result(selection: Selection, signals: dict[str, Signals], diagnostics: bool) -> RecallResult:
    """The response body; sources and suppressed entries only with diagnostics."""
    memories = []
    now = selection.now
    for entry in selection.chosen:
        memory, score = entry.memory, entry.score
        found = signals.get(memory.id)
        sources = None
        if diagnostics:
            sources = CandidateSources(relevance=round(entry.relevance, 4))
            if found is not None:
                sources = CandidateSources(
                    dense_rank=found.dense_rank,
                    dense_score=found.dense_score,
                    keyword_rank=found.keyword_rank,
                    keyword_score=None if found.keyword_score is None else round(found.keyword_score, 4),
                    relevance=round(entry.relevance, 4),
                )
        memories.append(
            RecalledMemory(
                id=memory.id,
                text=memory.text,
                type=memory.type,
                confidence=memory.confidence,
                effective_confidence=round(score.effective_confidence, 4),
                score=round(score.value, 4),
                recall_reason="; ".join(entry.reasons),
                citations=list(memory.source_turn_ids),
                valid_from=memory.valid_from,
                trust=memory.trust.value,
                source_role=memory.source_role,
                recalled_at=now,
                last_confirmed=memory.last_confirmed,
                needs_confirmation=now is not None and needs_confirmation(memory, now),
                certainty=certainty(memory, now) if now is not None else "firm",
                polarity=memory.polarity,
                sensitivity=memory.sensitivity,
                sources=sources,
            )
        )
    return RecallResult(
        memories=memories,
        conflicts=[
            *(ConflictView.of_contradiction(c) for c in selection.conflicts),
            *(ConflictView.of_contest(c) for c in selection.contests),
        ],
        confirmations=[
            ConfirmationView(memory_id=m.id, text=m.text, instruction=i) for m, i in selection.confirmations
        ],
        suppressed=[SuppressedView(id=i, why=w) for i, w in selection.suppressed] if diagnostics else [],
        tokens_used=selection.tokens_used,
    )
