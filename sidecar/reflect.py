"""Reflect: recall, then a grounded answer from the recalled memories, never a write (contract §3).

    recall (RecallService: same key-decided scope, budget-bounded)
    → evidence (recall's `certainty`: weak = weak when said, caution trust, or contradicted;
      old = well supported, only not confirmed lately, said with its date, never called weak)
    → answer: the LLM answerer when configured, else (or when it fails) an extractive answer;
      both are given recall's conflicts and say so (the LLM's answer gets the extractive conflict
      sentence appended when the model did not report `conflicts_noted`)

Reflection reads only. Its answer is not turned into memory; saving an outcome is a separate
retain call. Missing evidence is said plainly ("I have no memory about that."), weaker evidence
is labelled, and a contested or contradicted value is named ("you've told me both ..."), so
uncertainty is never hidden behind "no memory".
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Annotated, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from beliefs.confidence import WEAK_CONFIDENCE
from beliefs.records import MAX_ID_LENGTH, Trust
from llm.prompts.reflect_answer import ConflictItem, EvidenceItem, ReflectAnswer, ReflectContext
from sidecar.auth import Principal
from sidecar.errors import ReflectAnswerError
from sidecar.recall.conflict_view import ConflictView
from sidecar.recall.models import MAX_BUDGET_TOKENS, MAX_QUERY_CHARS, RecalledMemory, RecallRequest
from sidecar.recall.policy import Conflict
from sidecar.recall.service import RecallService

logger = logging.getLogger(__name__)

Identifier = Annotated[str, Field(min_length=1, max_length=MAX_ID_LENGTH)]

NO_MEMORY = "I have no memory about that."

#: How many memories an extractive answer names, per kind: enough to answer, short enough to read.
MAX_STRONG = 5
MAX_WEAK = 3

Mode = Literal["llm", "extractive"]


class Answerer(Protocol):
    """Writes the grounded answer for a question and its evidence (the LLM path)."""

    async def answer(self, context: ReflectContext) -> ReflectAnswer: ...


class ReflectRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user_id: Identifier
    question: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    agent_id: Identifier | None = Field(
        default=None, description="the key decides: a bound key's agent only; a tenant key needs `agents` (else 403)"
    )
    budget_tokens: int = Field(default=800, ge=1, le=MAX_BUDGET_TOKENS)
    workspace_id: Identifier | None = Field(
        default=None, description="as recall's: this workspace's memories beside those of no workspace"
    )


class ReflectResult(BaseModel):
    answer: str
    memories: list[str] = Field(description="ids of the memories the answer rests on")
    citations: list[str] = Field(description="the turn ids those memories were learnt from")
    evidence: list[EvidenceItem] = Field(description="every recalled memory, best-supported first")
    mode: Mode
    note: str | None = Field(
        default=None, description="why the answer is extractive when an LLM is configured"
    )


def is_weaker_evidence(effective_confidence: float, trust: Trust) -> bool:
    """Weaker evidence by the numbers alone: decayed or low confidence, or a caution source.

    Recall's `certainty` refines this (an old, well-supported fact is `old`, not weak); this stays
    for callers that only have the two numbers.
    """
    return effective_confidence < WEAK_CONFIDENCE or trust is not Trust.TRUSTED


def evidence_of(recalled: Sequence[RecalledMemory], trust: dict[str, Trust] | None = None) -> list[EvidenceItem]:
    """Evidence ordered strong before weak, each by recall score (relevance and confidence blended).

    Weak and old come from recall's `certainty` (and trust from the item, or `trust` when given).
    """
    trust = trust or {}

    def weak(m: RecalledMemory) -> bool:
        return m.certainty == "weak" or trust.get(m.id, Trust(m.trust)) is not Trust.TRUSTED

    items = []
    for memory in sorted(recalled, key=lambda m: (weak(m), -m.score, m.id)):
        items.append(
            EvidenceItem(
                id=memory.id,
                text=memory.text,
                confidence=memory.confidence,
                effective_confidence=memory.effective_confidence,
                trust=trust.get(memory.id, Trust(memory.trust)).value,
                weak=weak(memory),
                old=memory.certainty == "old" and not weak(memory),
                last_confirmed=(memory.last_confirmed or memory.valid_from).date().isoformat(),
            )
        )
    return items


def _clause(item: EvidenceItem) -> str:
    text = item.text.strip().rstrip(".")
    caution = ", from a less trusted source" if item.trust != Trust.TRUSTED.value else ""
    if item.old:
        return f"{text} (as of {item.last_confirmed}, not confirmed since; confidence {item.confidence:.2f})"
    return f"{text} (confidence {item.effective_confidence:.2f}{caution})"


def _side(value: str | None, polarity: str) -> str:
    return f"not {value!r}" if polarity == "negative" else repr(value)


def _conflict_sentence(conflicts: Sequence[Conflict | ConflictView]) -> str:
    """Contradictions say which value won; contested slots say that none has yet."""
    decided, open_ = [], []
    for c in conflicts:
        if isinstance(c, ConflictView) and c.kind == "contested":
            open_.append(f"{c.attribute}: " + " or ".join(_side(v.value, v.polarity) for v in c.values))
        elif isinstance(c, ConflictView):
            kept, dropped = c.values[0], c.values[-1]
            decided.append(f"{c.attribute}: {_side(kept.value, kept.polarity)} over {_side(dropped.value, dropped.polarity)}")
        else:
            decided.append(f"{c.attribute}: {c.kept_value!r} over {c.dropped_value!r}")
    sentences = []
    if decided:
        sentences.append(f"Some of what you've told me conflicts, and I went with the stronger memory ({'; '.join(decided)}).")
    if open_:
        sentences.append(
            f"You've told me conflicting things and it is not settled yet ({'; '.join(open_)}): which one holds?"
        )
    return " ".join(sentences)


def conflict_items(conflicts: Sequence[Conflict | ConflictView]) -> tuple[ConflictItem, ...]:
    """Recall's conflicts as the LLM prompt shows them: the kept value first when one was kept."""
    items = []
    for c in conflicts:
        if isinstance(c, ConflictView):
            values = tuple(_side(v.value, v.polarity) for v in c.values)
            items.append(ConflictItem(attribute=c.attribute, values=values, settled=c.kind != "contested"))
        else:
            values = (_side(c.kept_value, c.kept_polarity.value), _side(c.dropped_value, c.dropped_polarity.value))
            items.append(ConflictItem(attribute=c.attribute, values=values, settled=True))
    return tuple(items)


def extractive_answer(
    evidence: Sequence[EvidenceItem], conflicts: Sequence[Conflict | ConflictView] = ()
) -> tuple[str, list[str]]:
    """The answer made of the best-supported memories themselves, and the ids it names (pure).

    With no evidence but a conflict, the conflict is the answer: never "no memory" for a value
    that is known, only disputed.
    """
    firm = [item for item in evidence if not item.weak and not item.old][:MAX_STRONG]
    old = [item for item in evidence if item.old][:MAX_STRONG]
    weak = [item for item in evidence if item.weak][:MAX_WEAK]
    if not firm and not old and not weak:
        return (_conflict_sentence(conflicts) if conflicts else NO_MEMORY), []
    sentences = []
    if firm:
        sentences.append("Based on what you've told me: " + "; ".join(map(_clause, firm)) + ".")
    if old:
        lead = "From what you told me a while ago" if firm else "Based on what you told me a while ago"
        sentences.append(f"{lead}: " + "; ".join(map(_clause, old)) + ".")
    if not firm and not old:
        sentences.append("I'm not sure: I only have weaker evidence.")
    if weak:
        sentences.append("Weaker evidence: " + "; ".join(map(_clause, weak)) + ".")
    if conflicts:
        sentences.append(_conflict_sentence(conflicts))
    return " ".join(sentences), [item.id for item in (*firm, *old, *weak)]


def citations_of(memory_ids: Sequence[str], recalled: Sequence[RecalledMemory]) -> list[str]:
    """The source turn ids of `memory_ids`, in order, without repeats."""
    by_id = {memory.id: memory for memory in recalled}
    turns = [turn for memory_id in memory_ids for turn in by_id[memory_id].citations]
    return list(dict.fromkeys(turns))


class ReflectService:
    """Recall plus an answer; `answerer` None is the offline (extractive) mode."""

    def __init__(self, recall: RecallService, answerer: Answerer | None = None) -> None:
        self._recall = recall
        self._answerer = answerer

    async def reflect(self, principal: Principal, request: ReflectRequest) -> ReflectResult:
        recalled = await self._recall.recall(
            principal,
            RecallRequest(
                user_id=request.user_id,
                query=request.question,
                agent_id=request.agent_id,
                workspace_id=request.workspace_id,
                budget_tokens=request.budget_tokens,
                episodes=False,  # answers rest on beliefs; quoting episodes is recall's job
            ),
        )
        memories = recalled.memories
        evidence = evidence_of(memories)
        note = None
        conflicts = recalled.conflicts
        if self._answerer is not None and (evidence or conflicts):
            try:
                answered = await self._answerer.answer(
                    ReflectContext(
                        question=request.question, evidence=tuple(evidence), conflicts=conflict_items(conflicts)
                    )
                )
            except ReflectAnswerError as exc:
                logger.warning("reflect fell back to the extractive answer: %s", exc)
                note = f"the language model gave no usable answer ({exc}); this answer is extractive"
            else:
                answer = answered.answer
                if conflicts and not answered.conflicts_noted:  # said, whatever the model did
                    answer = f"{answer} {_conflict_sentence(conflicts)}"
                return ReflectResult(
                    answer=answer,
                    memories=answered.cited_ids,
                    citations=citations_of(answered.cited_ids, memories),
                    evidence=evidence,
                    mode="llm",
                )
        answer, used = extractive_answer(evidence, conflicts)
        return ReflectResult(
            answer=answer,
            memories=used,
            citations=citations_of(used, memories),
            evidence=evidence,
            mode="extractive",
            note=note,
        )
