"""Contradiction loops: when auto-resolving a belief has demonstrably failed. Pure functions, no I/O.

A pair (entity, attribute) whose value keeps flipping (morning → afternoon → morning again) is
not a preference update but a context the store does not know: each flip is "correct" and the
belief is wrong anyway. Once a write would be the `threshold`-th supersession of the pair within
`window_days`, the pair is *contested*: nothing of it is auto-resolved any more, a person is asked
(an input-required escalation) and their answer becomes a meta-memory, possibly one per context.

`contends` widens "would supersede" across contexts: a value for one context disputes a different
default (null-context) value of the pair. Outside a loop that is harmless coexistence (reconcile
inserts it alongside); inside a churning pair it is the ambiguous context change to escalate.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from beliefs.attributes import is_single_valued
from beliefs.reconcile import normalize_value, too_weak_to_overturn
from beliefs.records import ID_NAMESPACE, Memory

#: Supersessions of one pair within the window that make a loop.
DEFAULT_THRESHOLD = 3
#: The window those supersessions are counted in.
DEFAULT_WINDOW_DAYS = 30.0

#: Importance of a resolution's meta-memory (its confidence is `RESOLUTION_CONFIDENCE`): above
#: anything extraction writes.
RESOLUTION_IMPORTANCE = 0.95

Pair = tuple[str, str, str, str]  # tenant, user, entity, attribute


def is_contradiction_loop(
    supersession_times: Iterable[datetime],
    now: datetime,
    threshold: int = DEFAULT_THRESHOLD,
    window_days: float = DEFAULT_WINDOW_DAYS,
) -> bool:
    """Whether at least `threshold` supersessions fall in the window `(now - window_days, now]`."""
    if threshold < 1:
        raise ValueError(f"threshold must be at least 1, got {threshold}")
    if window_days <= 0:
        raise ValueError(f"window_days must be positive, got {window_days}")
    start = now - timedelta(days=window_days)
    return sum(1 for moment in supersession_times if start < moment <= now) >= threshold


def pair_of(memory: Memory) -> Pair | None:
    """The (tenant, user, entity, attribute) a memory speaks about, whatever its context."""
    if not memory.entity or not memory.attribute:
        return None
    return (memory.tenant_id, memory.user_id, memory.entity, memory.attribute)


def contested_id(pair: Pair, private_to: str | None = None) -> str:
    """Deterministic id of a pair's contested slot: the same loop found twice is one slot.

    A loop in one agent's private beliefs (`private_to`) is a slot of its own, apart from the
    user's shared one.
    """
    scope = "" if private_to is None else f"\x1fagent\x1f{private_to}"
    return str(uuid.uuid5(ID_NAMESPACE, "contested\x1f" + "\x1f".join(pair) + scope))


def can_loop(memory: Memory) -> bool:
    """A claim that could flip a belief: a value of a single-valued attribute."""
    return pair_of(memory) is not None and memory.value is not None and is_single_valued(memory.attribute)


def contends(new: Memory, active: Sequence[Memory]) -> list[Memory]:
    """Current memories of `new`'s pair whose value a confident `new` disputes.

    Same context (or both default) with a different value, or one of the two is the default
    (null context) and the values differ. Two different named contexts never dispute.
    """
    if not can_loop(new) or too_weak_to_overturn(new):
        return []
    pair = pair_of(new)
    value = normalize_value(new.value or "")
    return [
        m
        for m in active
        if m.id != new.id
        and m.is_current
        and pair_of(m) == pair
        and m.value is not None
        and normalize_value(m.value) != value
        and (_same_context(m.context, new.context) or m.context is None or new.context is None)
    ]


def counted_supersessions(times: Iterable[datetime], since: datetime | None) -> list[datetime]:
    """Supersession times after the pair's last resolution (a resolution starts a clean count)."""
    return [t for t in times if since is None or t > since]


def history_entry(memory: Memory) -> dict[str, Any]:
    """One step of a pair's value history, as stored and published."""
    return {
        "value": memory.value,
        "context": memory.context,
        "memory_id": memory.id,
        "at": memory.valid_from.isoformat(),
    }


def value_history(existing: Sequence[dict[str, Any]], memories: Iterable[Memory]) -> list[dict[str, Any]]:
    """`existing` plus the entries of `memories` not in it yet, oldest first (ties by memory id)."""
    seen = {entry["memory_id"] for entry in existing}
    added = [history_entry(m) for m in memories if m.id not in seen and not seen.add(m.id)]
    return sorted([*existing, *added], key=lambda e: (e["at"], e["memory_id"]))


def input_required(
    slot_id: str, pair: Pair, history: Sequence[dict[str, Any]], agent_id: str | None = None
) -> dict[str, Any]:
    """The escalation a person (or a supervisor agent) answers with `POST /v1/contested/{id}/resolve`.

    `agent_id` names the agent whose private beliefs loop (None: the user's shared beliefs).
    """
    tenant_id, user_id, entity, attribute = pair
    return {
        "kind": "input_required",
        "contested_id": slot_id,
        "tenant_id": tenant_id,
        "user_id": user_id,
        "agent_id": agent_id,
        "entity": entity,
        "attribute": attribute,
        "value_history": list(history),
    }


def resolution_choices(
    value: str | None, by_context: dict[str, str] | None, default: str | None
) -> list[tuple[str | None, str]]:
    """The (context, value) pairs a resolution stores; the default (null context) first.

    Exactly one of `value` and `by_context`; `default` only with `by_context`.
    """
    if (value is None) == (by_context is None):
        raise ValueError("give exactly one of value and by_context")
    if value is not None:
        if default is not None:
            raise ValueError("default goes with by_context, not with value")
        return [(None, _nonblank(value, "value"))]
    if not by_context:
        raise ValueError("by_context needs at least one context")
    choices: list[tuple[str | None, str]] = []
    if default is not None:
        choices.append((None, _nonblank(default, "default")))
    for context, chosen in by_context.items():
        choices.append((_nonblank(context, "context").strip().lower(), _nonblank(chosen, f"value of {context!r}")))
    return choices


def resolution_text(attribute: str, value: str, context: str | None, subject: str = "User") -> str:
    """The meta-memory's sentence: "User prefers morning meetings for consulting."."""
    if attribute == "preferred_meeting_time":
        claim = f"{subject} prefers {value} meetings"
    else:
        claim = f"{subject}'s {attribute.replace('_', ' ')} is {value}"
    return f"{claim} for {context}." if context else f"{claim} (default)."


def _same_context(a: str | None, b: str | None) -> bool:
    return (normalize_value(a) if a else None) == (normalize_value(b) if b else None)


def _nonblank(text: str, what: str) -> str:
    if not text or not text.strip():
        raise ValueError(f"{what} must not be blank")
    return text.strip()
