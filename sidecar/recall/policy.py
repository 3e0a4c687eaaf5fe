"""The read gate's rules, as pure functions: currency, scope, triggers, live intent, conflicts.

The store already applies scope and currency in SQL; `currency_violation` and `out_of_scope` check
again what came back, so a store bug degrades recall instead of leaking. Contested slots (state
`contested`) are not current and never recalled here; `context_mismatches` runs before
`resolve_conflicts`: of values that differ only by context (a resolution's meta-memories), the one
of the context the request names wins, else the default.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from agents.attributes import is_single_valued
from agents.reconcile import normalize_value
from sinks.recall import RecallScope
from streams.records import Memory, MemoryState, RecallSemantics, Trust, Visibility


@dataclass(frozen=True)
class RequestedAction:
    """What the caller is about to do, e.g. recommend / restaurant; constraints fire on it."""

    action: str
    domain: str | None = None

    def describe(self) -> str:
        return f"{self.action}/{self.domain}" if self.domain else self.action


class Conflict(BaseModel):
    """Two current memories that contradict; only `kept` is recalled."""

    model_config = ConfigDict(frozen=True)

    entity: str
    attribute: str
    context: str | None
    kept_id: str
    kept_value: str
    dropped_id: str
    dropped_value: str


def currency_violation(memory: Memory, now: datetime, confidence_floor: float) -> str | None:
    """Why `memory` is not current at `now`, or None."""
    if memory.state is not MemoryState.ACTIVE:
        return f"state {memory.state.value}"
    if memory.valid_until is not None:
        return "no longer valid"
    if memory.revoked_at is not None:
        return "revoked"
    if memory.expires_at is not None and memory.expires_at <= now:
        return "expired"
    if memory.confidence < confidence_floor:
        return "confidence below the floor"
    if memory.trust is Trust.UNTRUSTED:
        return "untrusted source"
    return None


def out_of_scope(memory: Memory, scope: RecallScope) -> bool:
    """Another tenant, another user, or another agent's private memory."""
    if memory.tenant_id != scope.tenant_id or memory.user_id != scope.user_id:
        return True
    return memory.visibility is Visibility.AGENT and (scope.agent_id is None or memory.agent_id != scope.agent_id)


def fires(memory: Memory, action: RequestedAction | None) -> bool:
    """A constraint fires on its trigger's action, in its domain or (no domain in the trigger) any."""
    if action is None or memory.recall_semantics is not RecallSemantics.CONSTRAINT or not memory.trigger:
        return False
    wanted = memory.trigger.get("action")
    if not wanted or normalize_value(wanted) != normalize_value(action.action):
        return False
    domain = memory.trigger.get("domain")
    return not domain or (action.domain is not None and normalize_value(domain) == normalize_value(action.domain))


def live_intent_attributes(live_intent: Mapping[str, str]) -> frozenset[str]:
    return frozenset(normalize_value(name) for name in live_intent)


def yields_to_live_intent(memory: Memory, live_attributes: frozenset[str]) -> bool:
    """A default whose attribute the live instruction sets; constraints never yield silently."""
    if memory.recall_semantics is RecallSemantics.CONSTRAINT or not memory.attribute:
        return False
    return normalize_value(memory.attribute) in live_attributes


_TOKEN = re.compile(r"[a-z0-9]+")


def named_contexts(topic: str | None, live_intent: Mapping[str, str], query: str) -> frozenset[str]:
    """The contexts a request speaks in: its `topic`, `live_intent["context"]`, or the query's words.

    A context is matched as a whole word sequence of the query ("consulting", "main job"), or as a
    set of query tokens, so "schedule my consulting call" names `consulting`.
    """
    named = {normalize_value(topic)} if topic else set()
    intent = {normalize_value(k): v for k, v in live_intent.items()}.get("context")
    if intent:
        named.add(normalize_value(intent))
    return frozenset(named | {f"\x00{token}" for token in _TOKEN.findall(query.casefold())})


def _names(named: frozenset[str], context: str) -> bool:
    if context in named:
        return True
    tokens = _TOKEN.findall(context)
    return bool(tokens) and all(f"\x00{token}" in named for token in tokens)


def context_mismatches(memories: Iterable[Memory], named: frozenset[str]) -> dict[str, str]:
    """{suppressed id: why} among current values of one entity+attribute that differ only by context.

    When the request names a context one of them holds, that context's value wins; otherwise the
    default (null-context) value does. Without a default and without a named context, nothing is
    decided here (each context stays its own slot for `resolve_conflicts`).
    """
    groups: dict[tuple, list[Memory]] = {}
    for memory in memories:
        if memory.entity and memory.attribute and memory.value is not None and is_single_valued(memory.attribute):
            groups.setdefault((normalize_value(memory.entity), memory.attribute), []).append(memory)
    suppressed: dict[str, str] = {}
    for group in groups.values():
        contexts = {normalize_value(m.context) if m.context else None for m in group}
        if len(contexts) < 2:
            continue
        chosen = sorted((c for c in contexts if c is not None and _names(named, c)), key=lambda c: (-len(c), c))
        keep = chosen[0] if chosen else None
        if keep is None and None not in contexts:
            continue
        for memory in group:
            context = normalize_value(memory.context) if memory.context else None
            if context != keep:
                wanted = f"context {keep!r}" if keep else "no named context (the default holds)"
                suppressed[memory.id] = f"context mismatch: {wanted}"
    return suppressed


def _strength(memory: Memory) -> tuple:
    """Stronger: more confident, then more recently confirmed or valid; the id breaks ties."""
    return (memory.confidence, memory.last_confirmed or memory.valid_from, memory.id)


def resolve_conflicts(memories: Iterable[Memory]) -> dict[str, Conflict]:
    """{dropped id: conflict} over groups of one slot (entity, single-valued attribute, context)."""
    groups: dict[tuple, list[Memory]] = {}
    for memory in memories:
        if memory.entity and memory.attribute and memory.value is not None and is_single_valued(memory.attribute):
            context = normalize_value(memory.context) if memory.context else None
            groups.setdefault((normalize_value(memory.entity), memory.attribute, context), []).append(memory)
    dropped: dict[str, Conflict] = {}
    for group in groups.values():
        winner = max(group, key=_strength)
        kept_value = normalize_value(winner.value or "")
        for memory in group:
            if normalize_value(memory.value or "") != kept_value:
                dropped[memory.id] = Conflict(
                    entity=winner.entity or "",
                    attribute=winner.attribute or "",
                    context=winner.context,
                    kept_id=winner.id,
                    kept_value=winner.value or "",
                    dropped_id=memory.id,
                    dropped_value=memory.value or "",
                )
    return dropped
