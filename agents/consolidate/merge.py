"""One canonical memory from a group: its text (offline, or by an LLM) and its fields. Pure.

The offline merge keeps every distinct detail: the lead memory's text first, then each other
member's clauses that add a word the text does not already hold, joined into one sentence about
the same subject ("User prefers async communication; finds long meetings exhausting; and ...").
It is deterministic, so a dry run previews exactly what an offline apply writes.

Fields are decided here, never by a model: importance and confidence take the maximum (members
are independent statements of one belief; weak and strong claims never share a group, so an
echo cannot inflate a hedge, and reconcile's `confirmed` follows the same rule), citations are
the union, the belief holds from the earliest member's `valid_from`, recall counts add up (the
canonical memory inherits its members' decay protection), and the id derives from the member ids.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from agents.consolidate.compat import shared_claim
from beliefs.records import ID_NAMESPACE, Memory, MemoryState, utcnow
from llm.prompts.merge_memories import MergeContext

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[\w'-]+")
_SUBJECT = re.compile(r"^(?:the user|user)\b\s*", re.IGNORECASE)
_FILLER = frozenset(
    {"a", "an", "the", "user", "is", "are", "their", "they", "and", "of", "to", "in", "that", "also"}
    | {"said", "says", "mentioned", "mentions", "stated", "states", "noted", "told", "explained"}
)

#: Words compare by their first letters, a stem crude enough to see "prefers" in "preferring".
_STEM = 6


@dataclass(frozen=True)
class Merged:
    """A canonical text and the merger that wrote it (a fallback reports its own name)."""

    text: str
    merged_by: str


@runtime_checkable
class Merger(Protocol):
    """Writes the canonical text of one group."""

    name: str

    async def merge(self, context: MergeContext) -> Merged: ...

    async def aclose(self) -> None:
        """Release what the merger holds (an HTTP client); nothing for a merger that holds none."""


class OfflineMerger:
    """The deterministic merge: no model, no network."""

    name = "offline"

    async def merge(self, context: MergeContext) -> Merged:
        return Merged(merge_texts([item.text for item in context.memories]), self.name)

    async def aclose(self) -> None:
        """Nothing to release."""


def lead_order(members: Sequence[Memory]) -> list[Memory]:
    """Most important first, then most confident, then oldest: the lead memory opens the text."""
    return sorted(members, key=lambda m: (-m.importance, -m.confidence, m.created_at, m.id))


def _words(text: str) -> set[str]:
    return {w[:_STEM] for w in _WORD.findall(text.casefold()) if w not in _FILLER}


def _clauses(text: str) -> list[str]:
    return [s.strip().rstrip(".!?;").strip() for s in _SENTENCE.split(text.strip()) if s.strip()]


def merge_texts(texts: Sequence[str]) -> str:
    """The texts (lead first) as one sentence that keeps every clause adding something new."""
    if not texts:
        raise ValueError("nothing to merge")
    lead = _clauses(texts[0]) or [texts[0].strip()]
    subject = _SUBJECT.match(lead[0])
    parts = list(lead)
    known = _words(" ".join(parts))
    for text in texts[1:]:
        for clause in _clauses(text):
            words = _words(clause)
            if not words or words <= known:
                continue  # says nothing the merged text does not already say
            known |= words
            if subject and _SUBJECT.match(clause):
                clause = _SUBJECT.sub("", clause, count=1)
            parts.append(clause)
    if len(parts) == 1:
        return parts[0] + "."
    return "; ".join(parts[:-1]) + "; and " + parts[-1] + "."


def canonical_id(tenant_id: str, member_ids: Sequence[str]) -> str:
    """Deterministic from the member ids (order-free): the same group always yields the same memory."""
    key = "\x1f".join(["consolidated", tenant_id, *sorted(member_ids)])
    return str(uuid.uuid5(ID_NAMESPACE, key))


def canonical_memory(members: Sequence[Memory], text: str, now=None) -> Memory:
    """The canonical memory of a group (members lead first); `now` is its creation time."""
    now = now or utcnow()
    lead = lead_order(members)[0]
    by_time = sorted(members, key=lambda m: (m.created_at, m.id))  # citations in the order they were said
    entity, attribute, value, context = shared_claim(list(members))
    expiries = [m.expires_at for m in members if m.expires_at is not None]
    half_lives = [m.half_life_days for m in members if m.half_life_days is not None]
    confirmations = [m.last_confirmed for m in members if m.last_confirmed is not None]
    accesses = [m.last_accessed for m in members if m.last_accessed is not None]
    return lead.model_copy(
        update={
            "id": canonical_id(lead.tenant_id, [m.id for m in members]),
            "text": text,
            "importance": max(m.importance for m in members),
            "confidence": max(m.confidence for m in members),
            "entity": entity,
            "attribute": attribute,
            "value": value,
            "context": context,
            # the merged text carries every member's details: it is as sensitive as the most sensitive
            "sensitivity": next((m.sensitivity for m in members if m.sensitivity), None),
            "source_turn_ids": list(dict.fromkeys(t for m in by_time for t in m.source_turn_ids)),
            "evidence": "\n".join(dict.fromkeys(m.evidence for m in by_time if m.evidence)),
            "state": MemoryState.ACTIVE,
            "created_at": now,
            "valid_from": min(m.valid_from for m in members),
            "valid_until": None,
            "superseded_by": None,
            "expires_at": max(expiries) if expiries else None,
            "revoked_at": None,
            "last_confirmed": max(confirmations) if confirmations else None,
            "last_accessed": max(accesses) if accesses else None,
            "access_count": sum(m.access_count for m in members),
            "decay_score": None,  # the next decay run scores it
            "half_life_days": min(half_lives) if half_lives else None,
        }
    )


def consolidated(original: Memory, canonical: Memory) -> Memory:
    """An original after the merge: closed now, pointing at its canonical memory."""
    return original.model_copy(
        update={
            "state": MemoryState.CONSOLIDATED,
            "valid_until": canonical.created_at,
            "superseded_by": canonical.id,
        }
    )
