"""Reconcile: what a new memory does to the current belief state. Pure functions, no I/O.

Contradictions are found on the structured slot (entity, attribute, context), not on the text:
"prefers mornings" and "now prefers afternoons" differ in words but fight over one value. Claims
arrive normalised (`reading.canonical_claim`: canonical attribute and value, polarity, decisions keyed by
matter). The store loads the candidates (active memories of the same tenant and user that share
the slot or the normalized text), asks `decide`, and applies the answer with `confirmed` and
`superseded`.

The rules, in order (a memory that is not itself current is only stored):

1. same normalized value and polarity in the slot, or same normalized text -> ``confirm``;
2. a weak claim (confidence below `CONFIDENCE_FLOOR`, or not trusted) -> ``insert_alongside``:
   stored, but it never overturns a belief;
3. the same value with the opposite polarity ("no longer lives in Berlin" against "lives in
   Berlin") -> ``supersede`` it: a retraction closes the belief, a re-affirmation the retraction;
4. a positive value of a single-valued attribute (the registry's, or any attribute outside it that
   is not a known set; a `decision` per matter) -> ``supersede`` the slot's other positive values;
5. a volatile claim (`expires_at`: "today", "this week") never supersedes a standing belief: it
   sits beside it (``insert_alongside``) until it expires; it may replace an older volatile one;
6. anything else (another value of a set, no structured claim) -> ``insert``.

An explicit correction needs no rule of its own: it is a confident claim, so it supersedes.
Confirmation from another session raises importance (`confirmed`): a fact repeated across
sessions is at least `REPEATED_IMPORTANCE`, each further session adding `REPEAT_STEP`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from beliefs.attributes import is_single_valued
from beliefs.confidence import CONFIDENCE_FLOOR
from beliefs.records import Memory, MemoryState, Polarity, Trust

#: Importance of a fact repeated across sessions (seed: "repeats a fact across sessions" → 0.8–1.0).
REPEATED_IMPORTANCE = 0.8
#: What each further confirming session adds, up to 1.0.
REPEAT_STEP = 0.05

Action = Literal["insert", "confirm", "supersede", "insert_alongside"]

#: (entity, attribute, context) of a structured claim; a null context is its own scope.
Slot = tuple[str, str, str | None]

_TRUST_RANK = {Trust.UNTRUSTED: 0, Trust.CAUTION: 1, Trust.TRUSTED: 2}
_SPACES = re.compile(r"\s+")
_TRAILING_PUNCTUATION = ".,;:!?…"


@dataclass(frozen=True)
class Decision:
    """What to do with a new memory; `target_ids` are the existing memories the action touches."""

    action: Action
    target_ids: tuple[str, ...] = ()
    reason: str = ""


@lru_cache(maxsize=8192)
def normalize_value(value: str) -> str:
    """Casefolded, trimmed, inner whitespace collapsed, trailing punctuation dropped: "Morning." == "morning"."""
    folded = _SPACES.sub(" ", value.casefold()).strip()
    return folded.rstrip(_TRAILING_PUNCTUATION + " ").strip()


def normalize_text(text: str) -> str:
    """The text as compared for duplicates; same rules as values."""
    return normalize_value(text)


@lru_cache(maxsize=8192)
def text_fingerprint(text: str) -> str:
    """A fixed-width digest of the normalized text, for an index lookup of exact duplicates."""
    return hashlib.sha256(normalize_text(text).encode("utf-8")).hexdigest()


def slot_of(memory: Memory) -> Slot | None:
    """The structured slot a memory speaks about, or None when it carries no entity and attribute."""
    if not memory.entity or not memory.attribute:
        return None
    return (memory.entity, memory.attribute, memory.context)


def too_weak_to_overturn(memory: Memory) -> bool:
    """A claim that may be stored but may never overturn a belief."""
    return memory.confidence < CONFIDENCE_FLOOR or memory.trust is not Trust.TRUSTED


def decide(new: Memory, candidates: Sequence[Memory]) -> Decision:
    """Decide how `new` enters the belief state given the active memories it could collide with.

    Candidates that are not current, belong to another tenant or user, or are `new` itself are
    ignored, so a caller may pass a superset. A `new` memory that is itself not current (an
    imported piece of history) is stored as it is and changes nothing.
    """
    if not new.is_current:
        return Decision("insert", (), f"a {new.state.value} memory is history, not a claim on the present")
    live = _ordered(
        c
        for c in candidates
        if c.is_current and c.id != new.id and c.tenant_id == new.tenant_id and c.user_id == new.user_id
    )
    slot = slot_of(new)
    in_slot = [c for c in live if slot is not None and slot_of(c) == slot]

    matches = _matches(new, live, in_slot)
    if matches:
        best = max(matches, key=_strength)
        return Decision("confirm", (best.id,), "same value" if best in in_slot else "same text")

    opposed = _opposed(new, in_slot)
    conflicting = opposed + [c for c in _conflicting(new, in_slot) if c not in opposed]
    if too_weak_to_overturn(new):
        why = "low confidence" if new.confidence < CONFIDENCE_FLOOR else f"{new.trust.value} source"
        return Decision(
            "insert_alongside", tuple(c.id for c in conflicting), f"{why}: never overturns a belief"
        )
    if new.expires_at is not None:
        standing = [c for c in conflicting if c.expires_at is None]
        replaced = [c for c in conflicting if c.expires_at is not None]
        if replaced:
            return Decision("supersede", tuple(c.id for c in replaced), "a newer volatile value")
        if standing:
            return Decision(
                "insert_alongside",
                tuple(c.id for c in standing),
                "volatile: sits beside the standing belief until it expires",
            )
    if opposed:
        verb = "retracts" if new.polarity is Polarity.NEGATIVE else "re-affirms"
        return Decision("supersede", tuple(c.id for c in conflicting), f"{verb} {new.value!r} of {new.attribute!r}")
    if conflicting:
        return Decision(
            "supersede",
            tuple(c.id for c in conflicting),
            f"new value for single-valued {new.attribute!r}",
        )
    if slot is not None and in_slot:
        return Decision("insert", (), f"another value of multi-valued {new.attribute!r}")
    return Decision("insert", (), "nothing to reconcile with")


def confirmed(existing: Memory, new: Memory) -> Memory:
    """`existing` after `new` said the same thing again: more citations, never weaker.

    Confidence, importance and trust take the stronger of the two. A weak claim adds its turn
    as a citation but does not refresh `last_confirmed`: echoes are not evidence of currency.
    A confident confirmation from another session raises importance (`repeated_importance`).
    """
    turn_ids = list(dict.fromkeys([*existing.source_turn_ids, *new.source_turn_ids]))
    last_confirmed = existing.last_confirmed
    if not too_weak_to_overturn(new) and (last_confirmed is None or new.valid_from > last_confirmed):
        last_confirmed = new.valid_from
    trust = max(existing.trust, new.trust, key=_TRUST_RANK.__getitem__)
    return existing.model_copy(
        update={
            "last_confirmed": last_confirmed,
            "source_turn_ids": turn_ids,
            "confidence": max(existing.confidence, new.confidence),
            "importance": repeated_importance(existing, new),
            "trust": trust,
        }
    )


def repeated_importance(existing: Memory, new: Memory) -> float:
    """Importance after `new` confirmed `existing`: the stronger of the two, raised when it came from
    another session (at least `REPEATED_IMPORTANCE`, plus `REPEAT_STEP` if already there), never above 1.
    """
    importance = max(existing.importance, new.importance)
    other_session = new.source_session is not None and new.source_session != existing.source_session
    if too_weak_to_overturn(new) or not other_session:
        return importance
    if importance >= REPEATED_IMPORTANCE:
        return min(1.0, importance + REPEAT_STEP)
    return REPEATED_IMPORTANCE


def superseded(existing: Memory, by: Memory) -> Memory:
    """`existing` closed by `by`: no longer current, linked to its replacement.

    The belief ends when its replacement starts (`by.valid_from`), as the replacement says; a
    claim dated before the belief it replaces leaves an interval that closes before it opens.
    """
    return existing.model_copy(
        update={
            "valid_until": by.valid_from,
            "superseded_by": by.id,
            "state": MemoryState.SUPERSEDED,
        }
    )


def _matches(new: Memory, live: list[Memory], in_slot: list[Memory]) -> list[Memory]:
    """Candidates that already say what `new` says: same slot value, or same text."""
    found: list[Memory] = []
    if new.value is not None:
        value = normalize_value(new.value)
        found = [
            c
            for c in in_slot
            if c.value is not None and normalize_value(c.value) == value and c.polarity is new.polarity
        ]
    seen = {c.id for c in found}
    text = normalize_text(new.text)
    return found + [
        c for c in live if c.id not in seen and normalize_text(c.text) == text and c.polarity is new.polarity
    ]


def _opposed(new: Memory, in_slot: list[Memory]) -> list[Memory]:
    """Memories of the slot that hold `new`'s value with the opposite polarity."""
    if new.value is None:
        return []
    value = normalize_value(new.value)
    return [
        c
        for c in in_slot
        if c.value is not None and normalize_value(c.value) == value and c.polarity is not new.polarity
    ]


def _conflicting(new: Memory, in_slot: list[Memory]) -> list[Memory]:
    """Positive values of the slot that a confident positive `new` value of a single-valued attribute
    replaces (a retraction of one value says nothing about the others)."""
    if new.value is None or new.polarity is Polarity.NEGATIVE or not is_single_valued(new.attribute):
        return []
    value = normalize_value(new.value)
    return [
        c
        for c in in_slot
        if c.polarity is Polarity.POSITIVE and (c.value is None or normalize_value(c.value) != value)
    ]


def _strength(memory: Memory) -> tuple:
    """Which of several matches to confirm: the most trusted, then most confident, then oldest."""
    return (_TRUST_RANK[memory.trust], memory.confidence, -memory.created_at.timestamp())


def _ordered(memories) -> list[Memory]:
    return sorted(memories, key=lambda m: (m.created_at, m.id))
