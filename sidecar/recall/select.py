"""From hydrated candidates to the recalled block: the pure heart of recall.

Order of the gates: defensive currency/scope re-check, similarity gate, eligibility (matched,
profile block, fired constraint), live intent, conflicts, scoring, budget, edge-weighted order.
Selection priority: fired constraints, then the profile block, then the rest by `recall_score`;
prompt prominence: fired constraints, then everything else by `recall_score`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sidecar.recall import policy
from sidecar.recall.budget import edge_order, estimate_tokens, trim
from sidecar.recall.config import RecallConfig
from sidecar.recall.fusion import Signals
from sidecar.recall.models import (
    CandidateSources,
    ConflictView,
    RecalledMemory,
    RecallRequest,
    RecallResult,
    SuppressedView,
)
from sidecar.recall.scoring import Score, recall_score
from sinks.recall import RecallScope
from streams.records import Memory

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
    suppressed: list[tuple[str, str]] = field(default_factory=list)  # (id, why)
    tokens_used: int = 0
    dropped_stale: int = 0  # hydrated rows that failed the re-check (never listed: maybe not the caller's)


def select(
    request: RecallRequest,
    config: RecallConfig,
    now: datetime,
    scope: RecallScope,
    signals: dict[str, Signals],
    hydrated: Sequence[Memory],
    pinned: Sequence[Memory],
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

    action = request.action.requested() if request.action else None
    entries: dict[str, Entry] = {}
    for memory in pool.values():
        reasons: list[str] = []
        tier = RANKED
        if action is not None and policy.fires(memory, action):
            tier = CONSTRAINT
            reasons.append(f"constraint triggered by {action.describe()}")
        elif memory.profile:
            tier = PROFILE
            reasons.append("profile fact")
        found = signals.get(memory.id)
        relevance = 0.0
        if found is not None:
            if found.keyword_rank is None and (found.dense_score or 0.0) < config.min_similarity:
                if tier == RANKED:
                    suppressed[memory.id] = "below the similarity threshold"
            else:
                relevance = found.relevance
                reasons.append(f"matched query ({found.sources})")
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
    return Selection(
        chosen=edge_order(prominence),
        conflicts=conflicts,
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


def _touches(conflict: policy.Conflict, entries: dict[str, Entry]) -> bool:
    """Only conflicts involving something recall would return matter; the rest are not this query's."""
    return conflict.kept_id in entries or conflict.dropped_id in entries


def to_result(selection: Selection, signals: dict[str, Signals], diagnostics: bool) -> RecallResult:
    """The response body; sources and suppressed entries only with diagnostics."""
    memories = []
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
                sources=sources,
            )
        )
    return RecallResult(
        memories=memories,
        conflicts=[ConflictView(**c.model_dump()) for c in selection.conflicts],
        suppressed=[SuppressedView(id=i, why=w) for i, w in selection.suppressed] if diagnostics else [],
        tokens_used=selection.tokens_used,
    )
