"""From a selection to the response body: one `RecalledMemory` per chosen entry, its conflicts and
confirmations; the candidate sources and the suppressed list only with diagnostics (pure).
"""

from __future__ import annotations

from sidecar.recall import currency
from sidecar.recall.conflict_view import ConflictView
from sidecar.recall.diagnostics import CandidateSources, SuppressedView
from sidecar.recall.freshness import certainty, needs_confirmation
from sidecar.recall.fusion import Signals
from sidecar.recall.models import ConfirmationView, EpisodeTurn, QuoteEvidence, RecalledMemory, RecallResult
from sidecar.recall.selection import Selection


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
                    linked=found.linked,
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
                citations=[*memory.source_turn_ids, *(t.turn_id for t in entry.context if t.turn_id not in memory.source_turn_ids)],
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
                said_at=entry.evidence[0].said_at if entry.evidence else None,
                evidence=[QuoteEvidence.of(e) for e in entry.evidence],
                context=[EpisodeTurn.of(t) for t in sorted(entry.context, key=lambda t: (t.said_at, t.turn_id))],
                **currency.labels(currency.of_memory(memory)),
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
