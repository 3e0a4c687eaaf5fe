"""The read gate's rules, as pure functions: currency, scope, triggers, live intent, topic, conflicts.

Live intent is read in `sidecar.recall.live_intent` (its names are importable from here too).

The store already applies scope and currency in SQL; `currency_violation` and `out_of_scope` check
again what came back, so a store bug degrades recall instead of leaking. Contested slots (state
`contested`) are not current and never recalled here: `open_contests` keeps what of them may be
reported. `context_mismatches` runs before `resolve_conflicts`: of values that differ only by
context (a resolution's meta-memories), the one of the context the request names wins, else the
default. `outside_topic` narrows the matched candidates to the request's topic.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from beliefs.attributes import is_single_valued
from beliefs.reconcile import normalize_value
from beliefs.records import Memory, MemoryState, Polarity, RecallSemantics, Trust, Visibility
from reading.domains import KNOWN_DOMAINS, action_family, action_in, canonical_domain, domains_of, widened
from reading.period import lapsed
from reading.sincerity import Sincerity, sincerity_of
from sidecar.recall.live_intent import LiveIntent
from sidecar.recall.sensitivity_gate import sensitive_outside, sensitive_words_outside
from sinks.recall import OpenContest, RecallScope


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
    kept_polarity: Polarity = Polarity.POSITIVE
    dropped_polarity: Polarity = Polarity.POSITIVE


def currency_violation(
    memory: Memory, now: datetime, confidence_floor: float, state: MemoryState = MemoryState.ACTIVE
) -> str | None:
    """Why `memory` is not current (in `state`, active unless said) at `now`, or None."""
    if memory.state is not state:
        return f"state {memory.state.value}"
    if memory.valid_until is not None:
        return "no longer valid"
    if memory.revoked_at is not None:
        return "revoked"
    if memory.expires_at is not None and memory.expires_at <= now:
        return "expired"
    if memory.expires_at is None and (ended := lapsed(memory.text, memory.valid_from, now)) is not None:
        return f"expired: said for a period that ended {ended.date().isoformat()}"
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


#: Kinship (`sidecar.recall.meaning`) at or above which a constraint's object and a request are of one kind
#: (dev: constraints that bear 0.40 and up, that do not 0.35 and below).
SAME_KIND = 0.37

#: Marks a quote withheld for its belief's reason (`ItemGates.quote_withheld`): the belief says it once.
OF_STATED_BELIEF = "said of the belief this turn stated"


def fires(
    memory: Memory, action: RequestedAction | None, request_domains: frozenset[str] = frozenset(), kin: float | None = None
) -> bool:
    """A constraint fires on its trigger's action family ("suggest" is "recommend"), in its domain.

    The request's domain is its action's, else what its query is about (`request_domains`). A
    trigger without a domain fires where it is of the request's kind (`kin`, read by meaning:
    `sidecar.recall.meaning`), or, when no kinship could be read, on every action of its family.
    """
    if action is None or memory.recall_semantics is not RecallSemantics.CONSTRAINT or not memory.trigger:
        return False
    wanted = memory.trigger.get("action")
    if not wanted or action_family(wanted) != action_family(action.action):
        return False
    own = constraint_domains(memory)
    if not own:
        return kin is None or kin >= SAME_KIND
    return bool(own & widened(_asked(action, request_domains)))


def _asked(action: RequestedAction | None, request_domains: frozenset[str]) -> frozenset[str]:
    """The request's domains: its action's when that is a domain we know, else what its query is about."""
    if action is not None and action.domain and canonical_domain(action.domain) in KNOWN_DOMAINS:
        return widened({canonical_domain(action.domain)})
    return request_domains


def constraint_domains(memory: Memory) -> frozenset[str]:
    """The domains a constraint holds in: its trigger's stated domain, else its object's ("burger
    joints" → food), else none (a constraint on an action in no domain we can name)."""
    if memory.recall_semantics is not RecallSemantics.CONSTRAINT:
        return frozenset()
    stated = (memory.trigger or {}).get("domain")
    if stated:
        return widened({canonical_domain(stated)})
    said = (memory.trigger or {}).get("object") or constraint_object(memory) or ""
    return domains_of(said)


def off_domain(
    memory: Memory, action: RequestedAction | None, request_domains: frozenset[str], kin: float | None = None
) -> str | None:
    """Why a constraint has nothing to do with this request, else None (it may still fire or be ranked).

    A constraint belongs to its domains (`constraint_domains`) and to its action family. With an
    action (the caller's, or the one the query asks for), it applies where it fires: in its domain
    when it has one, else for its action family. Without an action, only a domain the request is
    plainly in and the constraint is not rules it out; what cannot be told apart stays. A constraint
    in no domain we can name is off when it is by meaning of another kind than the request (`kin`
    below `SAME_KIND`).
    """
    if memory.recall_semantics is not RecallSemantics.CONSTRAINT or not memory.trigger:
        return None
    own = constraint_domains(memory)
    if not own and kin is not None and kin < SAME_KIND:
        return f"domain: by meaning, what it forbids is of another kind than this request (kinship {kin:.2f} < {SAME_KIND})"
    asked = _asked(action, request_domains) & KNOWN_DOMAINS
    if own and own & widened(asked):
        return None
    wanted = memory.trigger.get("action") or ""
    if own and (action is not None or asked):
        where = "/".join(sorted(asked)) or "no domain we can read"
        return f"domain: a constraint on {'/'.join(sorted(own))}, this request is about {where}"
    if not own and action is not None and wanted and action_family(wanted) != action_family(action.action):
        return f"domain: a constraint on what to {action_family(wanted)}, this request asks to {action_family(action.action)}"
    return None


def requested_action(action: RequestedAction | None, query: str) -> RequestedAction | None:
    """The caller's action, else the one the query asks for ("suggest somewhere for dinner")."""
    if action is not None:
        return action
    verb = action_in(query)
    return RequestedAction(verb) if verb else None


def constraint_object(memory: Memory) -> str | None:
    """What a constraint forbids, as its value names it ("recommend Alto" → "Alto"), else None."""
    if memory.recall_semantics is not RecallSemantics.CONSTRAINT or not memory.value:
        return None
    action = (memory.trigger or {}).get("action", "")
    value = memory.value.strip()
    if action and value.casefold().startswith(action.casefold()):
        value = value[len(action) :].strip()
    return value or None


def overridden_by(memory: Memory, live_intent: Mapping[str, str], query: str) -> str | None:
    """The live instruction that asks for what constraint `memory` forbids, else None.

    A live intent value, or the query itself, naming the constraint's object ("book Alto tonight"
    against "never recommend Alto") is such an instruction: it is reported for confirmation, and
    the constraint is still recalled; it is never silently obeyed.
    """
    target = constraint_object(memory)
    if not target:
        return None
    pattern = re.compile(rf"(?<!\w){re.escape(target.casefold())}(?!\w)")
    for name, value in live_intent.items():
        if pattern.search(value.casefold()):
            return f"live_intent {name}={value!r}"
    if pattern.search(query.casefold()):
        return "the query"
    return None


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


def outside_topic(memory: Memory, topic: str | None, named: frozenset[str]) -> str | None:
    """Why `memory` is cut by the request's `topic`, or None.

    `topic` is a broad namespace (contract §2: tech, work, personal, health) that narrows the
    ordinary candidates, and it is judged here, after hydration, rather than in the index query,
    because what it must not cut is only visible on the row: profile facts and constraints apply
    whatever the topic, and a value scoped to a context the request names (`named_contexts`: the
    topic itself, `live_intent["context"]`, the query's words) is that context's knowledge even
    though it is filed under its attribute's topic (a loop resolved `by_context {"work": "vim"}`
    stores `preferred_editor` under `tech`). So `topic: "work"` gets the work value, not nothing.
    """
    if topic is None or normalize_value(memory.topic) == normalize_value(topic):
        return None
    if memory.profile or memory.recall_semantics is RecallSemantics.CONSTRAINT:
        return None
    if memory.context and _names(named, normalize_value(memory.context)):
        return None
    return f"outside topic {topic!r}"


def open_contests(
    contests: Iterable[OpenContest], scope: RecallScope, now: datetime, confidence_floor: float
) -> list[OpenContest]:
    """The contests to report: each keeps its memories in scope and current but for being contested.

    A contest left with none is dropped, so a slot made only of another agent's private memories
    is never named (the same re-check as `out_of_scope`, for what is reported rather than recalled).
    """
    kept: list[OpenContest] = []
    for contest in contests:
        visible = tuple(
            m
            for m in contest.memories
            if not out_of_scope(m, scope)
            and currency_violation(m, now, confidence_floor, MemoryState.CONTESTED) is None
        )
        if visible:
            kept.append(replace(contest, memories=visible))
    return kept


def _strength(memory: Memory) -> tuple:
    """Stronger: a live volatile value ("light mode today") while it holds, then more confident, then
    more recently confirmed or valid; the id breaks ties. (Expired ones never reach this point.)"""
    return (memory.expires_at is not None, memory.confidence, memory.last_confirmed or memory.valid_from, memory.id)


def contradicts(a: Memory, b: Memory) -> bool:
    """Two memories of one slot that cannot both hold: the same value with opposite polarity, or two
    different positive values of a single-valued attribute (any attribute outside the known sets)."""
    same_value = normalize_value(a.value or "") == normalize_value(b.value or "")
    if same_value:
        return a.polarity is not b.polarity
    if a.polarity is Polarity.NEGATIVE or b.polarity is Polarity.NEGATIVE:
        return False
    return is_single_valued(a.attribute)


def resolve_conflicts(memories: Iterable[Memory]) -> dict[str, Conflict]:
    """{dropped id: conflict} over groups of one slot (entity, attribute, context), any attribute.

    Strongest first; a memory that contradicts one already kept is dropped, naming it.
    """
    groups: dict[tuple, list[Memory]] = {}
    for memory in memories:
        if memory.entity and memory.attribute and memory.value is not None:
            context = normalize_value(memory.context) if memory.context else None
            groups.setdefault((normalize_value(memory.entity), memory.attribute, context), []).append(memory)
    dropped: dict[str, Conflict] = {}
    for group in groups.values():
        kept: list[Memory] = []
        for memory in sorted(group, key=_strength, reverse=True):
            winner = next((k for k in kept if contradicts(k, memory)), None)
            if winner is None:
                kept.append(memory)
                continue
            dropped[memory.id] = Conflict(
                entity=winner.entity or "",
                attribute=winner.attribute or "",
                context=winner.context,
                kept_id=winner.id,
                kept_value=winner.value or "",
                dropped_id=memory.id,
                dropped_value=memory.value or "",
                kept_polarity=winner.polarity,
                dropped_polarity=memory.polarity,
            )
    return dropped


@dataclass(frozen=True)
class ItemGates:
    """One policy for every item: the gates a belief passes, for this request, applied to quotes too.

    A belief is withheld when it is sensitive outside the request's domains, a constraint outside its
    domain (`off_domain`), or a stored default a live instruction overrides (`LiveIntent`). A quote
    is withheld when its own frame makes it weaker evidence than recall admits (`reading.sincerity`:
    a hypothetical, rhetorical or sarcastic turn is trusted no more than the claim it would make,
    `HYPOTHETICAL_CONFIDENCE_CAP`, under the confidence floor), or when a belief it stated is withheld
    (a quote never shows what policy keeps back), or when its own words are special-category data
    outside the request's domain and no belief of it was judged, or when its words speak of what a
    live instruction names (the extractor may have made no belief of the default it states).
    """

    action: RequestedAction | None = None
    domains: frozenset[str] = frozenset()
    live: LiveIntent = LiveIntent()
    include_sensitive: tuple[str, ...] = ()
    confidence_floor: float = 0.0
    kinship: Mapping[str, float] = field(default_factory=dict)  # read by meaning (`sidecar.recall.meaning`)
    overridden: Mapping[str, str] = field(default_factory=dict)  # default id → the live instruction, by meaning
    asked: frozenset[str] = frozenset()  # the special-category candidates the question asks about (`asked`)

    def belief_withheld(self, memory: Memory, asked: bool = False) -> str | None:
        """Why a belief stays out, else None; `asked`: the question asks about it (`sensitive_outside`)."""
        return (
            sensitive_outside(memory, self.domains, self.include_sensitive, asked)
            or off_domain(memory, self.action, self.domains, self.kinship.get(memory.id))
            or self.live.overrides(memory)
            or self.overridden.get(memory.id)
        )

    def quote_withheld(self, text: str, linked: Sequence[Memory], asked: bool = False) -> str | None:
        """Why a quote stays out (its frame is checked first, by `framing_cap`), else None. `asked`: the
        question asks about what the quote says (its cosine, `sensitive_outside`), so about its beliefs too."""
        for memory in linked:
            why = self.belief_withheld(memory, asked)
            if why is not None:
                return f"{why} ({OF_STATED_BELIEF}, {memory.id})"
        if not any(m.sensitivity for m in linked):  # else its beliefs' verdict holds
            why = sensitive_words_outside(text, self.domains, self.include_sensitive, asked)
            if why is not None:
                return why
        return self.live.overrides_quote(text) if self.live else None


def framing_cap(text: str) -> tuple[float, str | None]:
    """The most a quote's words may be trusted given how they were said, and why (None: sincere)."""
    reading = sincerity_of(text)
    if reading.sincerity is Sincerity.SINCERE:
        return 1.0, None
    return reading.confidence_cap, f"framing: {reading.describe()}"
