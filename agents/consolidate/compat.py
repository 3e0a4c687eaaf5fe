"""Which memories may ever be merged: hard rules, checked before similarity counts. Pure.

Similar wording is not the same claim. Merging is refused across scope (user, visibility,
agent, workspace), across recall semantics (a `constraint` must keep firing on its own trigger; a `default`
yields to a live instruction), across trust levels, profile and non-profile facts, strong and
weak claims, and volatile and durable facts, because the canonical memory can carry only one of
each. Two structured claims that a later write could supersede separately are never merged:
"prefers mornings (consulting)" and "prefers afternoons (main job)" must stay two beliefs.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from beliefs.attributes import is_single_valued
from beliefs.reconcile import normalize_value, slot_of, too_weak_to_overturn
from beliefs.records import Memory, RecallSemantics, Trust, Visibility

#: Words that turn a statement around. Sentence embeddings barely see them ("likes X" and "dislikes
#: X" are ~0.9 similar), so two texts that differ in polarity are never merged.
_NEGATION = re.compile(
    r"\b(?:not|no|never|no longer|stop(?:ped)?|"
    r"dislikes?|hates?|avoids?|can't|cannot|won't|don't|doesn't|didn't|isn't|aren't|wasn't)\b|n't\b",
    re.IGNORECASE,
)


def negated(text: str) -> bool:
    """Whether the text says something negative ("does not", "never", "dislikes", ...)."""
    return bool(_NEGATION.search(text.replace("\u2019", "'")))


class Partition(NamedTuple):
    """Memories in different partitions are never compared."""

    tenant_id: str
    user_id: str
    visibility: Visibility
    agent_id: str | None
    workspace_id: str | None
    recall_semantics: RecallSemantics
    trust: Trust
    profile: bool
    weak: bool
    volatile: bool  # has an `expires_at`


def partition_of(memory: Memory) -> Partition:
    return Partition(
        memory.tenant_id,
        memory.user_id,
        memory.visibility,
        memory.agent_id,
        memory.workspace_id,
        memory.recall_semantics,
        memory.trust,
        memory.profile,
        too_weak_to_overturn(memory),
        memory.expires_at is not None,
    )


def claim_of(memory: Memory) -> tuple[str, str, str | None, str | None] | None:
    """(entity, attribute, context, normalized value) of a structured claim, else None."""
    slot = slot_of(memory)
    if slot is None:
        return None
    value = normalize_value(memory.value) if memory.value is not None else None
    return (*slot, value)


def conflicting(a: Memory, b: Memory) -> bool:
    """Same slot (entity, attribute, context), single-valued, different normalized values."""
    ca, cb = claim_of(a), claim_of(b)
    if ca is None or cb is None or ca[:3] != cb[:3]:
        return False
    return is_single_valued(a.attribute) and ca[3] != cb[3]


def compatible(a: Memory, b: Memory) -> bool:
    """Whether `a` and `b` may share a canonical memory.

    Beyond the partition: the same polarity (of the claim, and `negated` in the text), no conflicting values, no two different single-valued claims (the
    canonical memory could track only one of them for later supersession), and constraints only
    with the same trigger.
    """
    if partition_of(a) != partition_of(b) or negated(a.text) != negated(b.text) or a.polarity is not b.polarity:
        return False
    if a.recall_semantics is RecallSemantics.CONSTRAINT and (a.trigger or {}) != (b.trigger or {}):
        return False
    ca, cb = claim_of(a), claim_of(b)
    if ca is None or cb is None or ca == cb:
        return True
    if conflicting(a, b):
        return False
    return not (is_single_valued(a.attribute) or is_single_valued(b.attribute))


def shared_claim(members: list[Memory]) -> tuple[str | None, str | None, str | None, str | None]:
    """(entity, attribute, value, context) the canonical memory keeps: the one structured claim every
    member that has one agrees on (value as the first such member wrote it), else all None.

    Members without a claim do not count: dropping the claim would let a later contradiction of it
    miss the canonical memory and leave a stale belief active.
    """
    claims = {claim_of(m) for m in members} - {None}
    if len(claims) != 1:
        return (None, None, None, None)
    first = next(m for m in members if claim_of(m) is not None)
    return (first.entity, first.attribute, first.value, first.context)
