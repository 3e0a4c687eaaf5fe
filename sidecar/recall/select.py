"""From hydrated candidates to the recalled block: the pure heart of recall.

Order of the gates: defensive currency/scope re-check, similarity gate, eligibility (matched,
profile block, fired constraint), live intent, contexts, topic, conflicts, scoring, budget,
edge-weighted order. Open contested slots are reported beside the conflicts, never recalled.
Selection priority: fired constraints, then the profile block, then the rest by `recall_score`.
Prompt order (`sidecar.recall.prompt_order`, Lost in the Middle: the start and the end of a block are
read best): fired constraints and the profile block open it, the best-scoring memory closes it, the
second best follows the opening, the weakest sit in the middle. The entries and the `Selection`
returned: `sidecar.recall.selection`; the response body made of it: `sidecar.recall.result`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime

from beliefs.attributes import is_single_valued
from beliefs.reconcile import normalize_value
from beliefs.records import Memory
from sidecar.recall import policy, sensitivity_gate
from sidecar.recall.budget import Trimmed, estimate_tokens, trim
from sidecar.recall.config import RecallConfig
from sidecar.recall.floor import similarity_floor
from sidecar.recall.fusion import Signals, without_keyword
from sidecar.recall.linked import entity_link_relevance
from sidecar.recall.live_intent import LiveIntent
from sidecar.recall.meaning import Meaning
from sidecar.recall.metadata_match import entity_matches, metadata_matches, query_subject_terms, says_a_term
from sidecar.recall.models import RecallRequest
from sidecar.recall.prompt_order import prompt_order
from sidecar.recall.scoring import recall_score
from sidecar.recall.selection import CONSTRAINT, PROFILE, RANKED, Entry, Selection, Verdicts
from sinks.recall import OpenContest, RecallScope


def select(
    request: RecallRequest,
    config: RecallConfig,
    now: datetime,
    scope: RecallScope,
    signals: dict[str, Signals],
    hydrated: Sequence[Memory],
    pinned: Sequence[Memory],
    contests: Sequence[OpenContest] = (),
    *,
    domains: frozenset[str] | None = None,
    meaning: Meaning | None = None,
    impersonal: bool = False,
    asked: frozenset[str] = frozenset(),
) -> Selection:
    """The recalled block for `request`, one named gate after another (the module docstring's order).
    `domains`: the request's (`sensitivity.request_domains`) when the caller has them already;
    `meaning`: what the recall read by meaning (`sidecar.recall.meaning`), else the rules read words;
    `impersonal`: the query speaks of no one of the user's (`reference.speaks_of_user`); `asked`: the
    special-category candidates the question asks about (`sidecar.recall.asked`): no domain gate for them."""
    meaning = meaning or Meaning()
    pool, stale = _current_pool([*hydrated, *pinned], scope, now, config)
    action = policy.requested_action(request.action.requested() if request.action else None, request.query)
    if domains is None:
        domains = sensitivity_gate.request_domains(
            request.query, action.domain if action else None, request.topic
        )
    verdicts = Verdicts()
    _suppress_sensitive(pool, domains, request.include_sensitive, verdicts, asked)
    _withhold(pool, lambda m: policy.off_domain(m, action, domains, meaning.kinship.get(m.id)), verdicts)
    matched = _admit_eligible(pool, action, domains, request, signals, config, verdicts, meaning.kinship, impersonal)
    live = LiveIntent.of_request(request.live_intent, request.query)
    yielded = _yield_to_live_intent(pool, live, verdicts, meaning.overridden)
    named = policy.named_contexts(request.topic, request.live_intent, request.query)
    mismatched = _suppress_other_contexts(pool, named, yielded, verdicts)
    _narrow_to_topic(request.topic, named, matched, verdicts)
    contenders = [m for m in pool.values() if m.id not in yielded and m.id not in mismatched]
    conflicts = _settle_conflicts(contenders, pool, verdicts)
    for entry in verdicts.entries.values():
        entry.score = recall_score(entry.memory, entry.relevance, now, config)
    _cap_profile_block(verdicts, config.profile_limit)
    trimmed = _fit_budget(verdicts, request)
    prominence = sorted(trimmed.kept, key=lambda e: (e.tier != CONSTRAINT, -e.score.value, e.memory.id))
    return Selection(
        confirmations=_confirmations(prominence, request),
        now=now,
        chosen=prompt_order(trimmed.kept),
        conflicts=conflicts,
        contests=policy.open_contests(contests, scope, now, config.confidence_floor),
        suppressed=list(verdicts.suppressed.items()),
        tokens_used=trimmed.tokens_used,
        dropped_stale=stale,
    )


def _current_pool(
    candidates: Sequence[Memory], scope: RecallScope, now: datetime, config: RecallConfig
) -> tuple[dict[str, Memory], int]:
    """The defensive re-check: candidates still in scope and current, by id, and how many failed it."""
    pool: dict[str, Memory] = {}
    stale = 0
    for memory in candidates:
        if memory.id in pool:
            continue
        if policy.out_of_scope(memory, scope) or policy.currency_violation(memory, now, config.confidence_floor):
            stale += 1
            continue
        pool[memory.id] = memory
    return pool, stale


def _suppress_sensitive(
    pool: dict[str, Memory],
    domains: frozenset[str],
    include_sensitive: bool,
    verdicts: Verdicts,
    asked: frozenset[str] = frozenset(),
) -> None:
    """Take sensitive memories outside the request's domains out of the pool, unless the question asks
    about them (`asked`: `sidecar.recall.asked`)."""
    for memory_id, memory in list(pool.items()):
        why = sensitivity_gate.sensitive_outside(memory, domains, include_sensitive, memory_id in asked)
        if why is not None:
            del pool[memory_id]
            verdicts.suppress(memory_id, why)


def _withhold(pool: dict[str, Memory], why_not: Callable[[Memory], str | None], verdicts: Verdicts) -> None:
    """Take out of the pool what a gate of `policy` withholds from this request, with its reason."""
    for memory_id, memory in list(pool.items()):
        why = why_not(memory)
        if why is not None:
            del pool[memory_id]
            verdicts.suppress(memory_id, why)


def _admit_eligible(
    pool: dict[str, Memory],
    action: policy.RequestedAction | None,
    domains: frozenset[str],
    request: RecallRequest,
    signals: dict[str, Signals],
    config: RecallConfig,
    verdicts: Verdicts,
    kinship: Mapping[str, float],
    impersonal: bool = False,
) -> list[Memory]:
    """Admit what fires as a constraint, the profile block and what matched the query past its
    similarity floor; the memories that matched."""
    matched: list[Memory] = []
    terms = query_subject_terms(request.query)
    for memory in pool.values():
        tier, reasons = _tier(memory, action, domains, request, kinship.get(memory.id))
        found = signals.get(memory.id)
        relevance = 0.0
        if found is not None:
            named = metadata_matches(memory, terms)
            floor = similarity_floor(
                found if says_a_term(memory.text, terms) else without_keyword(found),
                config,
                named=named > 0,
                impersonal=impersonal,
            )
            if not floor.passes:
                if tier == RANKED:
                    verdicts.suppress(memory.id, floor.why or "")
            else:
                matches = named or int(found.linked)  # a link to the query's time counts as one match
                relevance = min(1.0, found.relevance + config.metadata_weight * min(matches, 2))
                if found.linked and named and entity_matches(memory, terms):  # linked by the entity it names
                    relevance = max(relevance, entity_link_relevance(config))
                reasons.append(f"matched query ({found.sources})")
                if named:
                    reasons.append(f"its entity, attribute or topic names {named} of the query's terms")
                matched.append(memory)
        if reasons:
            verdicts.admit(Entry(memory, tier, reasons, relevance))
    return matched


def _tier(
    memory: Memory,
    action: policy.RequestedAction | None,
    domains: frozenset[str],
    request: RecallRequest,
    kin: float | None = None,
) -> tuple[int, list[str]]:
    """The memory's tier regardless of the query match, with the reason it holds it (none when RANKED)."""
    if action is not None and policy.fires(memory, action, domains, kin):
        return CONSTRAINT, [f"constraint triggered by {action.describe()}"]
    if policy.overridden_by(memory, request.live_intent, request.query) is not None:
        return CONSTRAINT, ["constraint on what the live instruction asks for"]
    if sensitivity_gate.safety_fires(memory, domains):
        return CONSTRAINT, [f"safety fact for a {'/'.join(sorted(domains & sensitivity_gate.SAFETY_DOMAINS))} request"]
    if memory.profile and memory.sensitivity is None and not sensitivity_gate.is_safety_memory(memory):
        return PROFILE, ["profile fact"]
    return RANKED, []  # a sensitive or safety profile fact ("User is deaf.") passes without relevance only in its domain


def _yield_to_live_intent(
    pool: dict[str, Memory], live: LiveIntent, verdicts: Verdicts, by_meaning: Mapping[str, str]
) -> set[str]:
    """Suppress the memories whose attribute the live instruction sets (the caller's `live_intent`, else
    a one-off instruction of the query), or that it speaks of by meaning (`by_meaning`: id → why); their ids."""
    if not live:  # nothing to yield to
        return set()
    overridden = {m.id: why for m in pool.values() if (why := live.overrides(m) or by_meaning.get(m.id)) is not None}
    for memory_id, why in overridden.items():
        verdicts.suppress(memory_id, why)
    return set(overridden)


def _suppress_other_contexts(
    pool: dict[str, Memory], named: frozenset[str], yielded: set[str], verdicts: Verdicts
) -> dict[str, str]:
    """Suppress the values held for a context other than the one named; an admitted one hands its place
    to its slot-mate for this context. The suppressed ids, with why."""
    mismatched = policy.context_mismatches((m for m in pool.values() if m.id not in yielded), named)
    for memory_id, why in mismatched.items():
        loser = verdicts.suppress(memory_id, why)
        if loser is not None:
            _promote_context_mate(loser, pool, mismatched, yielded, verdicts)
    return mismatched


def _promote_context_mate(
    loser: Entry, pool: dict[str, Memory], mismatched: dict[str, str], yielded: set[str], verdicts: Verdicts
) -> None:
    """The query matched another context's value: its mate for this request's context takes its place."""
    lost = loser.memory
    for mate in pool.values():
        if mate.id in mismatched or mate.id in yielded or (mate.entity, mate.attribute) != (lost.entity, lost.attribute):
            continue
        if mate.id in verdicts.entries:
            entry = verdicts.entries[mate.id]
            entry.relevance = max(entry.relevance, loser.relevance)
        else:
            verdicts.admit(Entry(mate, RANKED, ["value for this request's context"], loser.relevance))


def _narrow_to_topic(
    topic: str | None, named: frozenset[str], matched: Sequence[Memory], verdicts: Verdicts
) -> None:
    """Drop the entries outside `topic` (`policy.outside_topic`), except values of a slot that a match
    inside it opened: they answer the question asked in the topic (so do conflict winners, which
    only a kept entry brings in, after this)."""
    if topic is None:
        return
    opened = {_slot(m) for m in matched if policy.outside_topic(m, topic, named) is None} - {None}
    for memory_id, entry in list(verdicts.entries.items()):
        why = policy.outside_topic(entry.memory, topic, named)
        if why is not None and _slot(entry.memory) not in opened:
            verdicts.suppress(memory_id, why)


def _settle_conflicts(
    contenders: Sequence[Memory], pool: dict[str, Memory], verdicts: Verdicts
) -> list[policy.Conflict]:
    """Resolve the contradictions touching an entry: the weaker value is suppressed, the stronger one
    takes its place (with its relevance) if the query had not brought it in. The conflicts reported."""
    conflicts = [c for c in policy.resolve_conflicts(contenders).values() if _touches(c, verdicts.entries)]
    for conflict in conflicts:
        loser = verdicts.suppress(conflict.dropped_id, f"conflicts with the stronger {conflict.kept_id}")
        relevance = loser.relevance if loser else 0.0
        winner = verdicts.entries.get(conflict.kept_id)
        if winner is None:  # a slot-mate the query did not match wins its slot
            verdicts.admit(Entry(pool[conflict.kept_id], RANKED, ["stronger value of a conflicting pair"], relevance))
        else:
            winner.relevance = max(winner.relevance, relevance)
    return conflicts


def _cap_profile_block(verdicts: Verdicts, profile_limit: int) -> None:
    """Past `profile_limit`, a profile fact that also matched the query competes as a ranked memory;
    the others are suppressed."""
    profile = [e for e in verdicts.ranked() if e.tier == PROFILE]
    for entry in profile[profile_limit:]:
        if len(entry.reasons) > 1:
            entry.tier = RANKED
        else:
            verdicts.suppress(entry.memory.id, "profile block full")


def _fit_budget(verdicts: Verdicts, request: RecallRequest) -> Trimmed[Entry]:
    """Keep the best-ranked entries within the token budget and the limit; suppress the rest."""
    trimmed = trim(verdicts.ranked(), lambda e: estimate_tokens(e.memory.text), request.budget_tokens, request.limit)
    for entry in trimmed.over_budget:
        verdicts.suppress(entry.memory.id, "over the token budget")
    for entry in trimmed.over_limit:
        verdicts.suppress(entry.memory.id, "over the limit")
    return trimmed


def _confirmations(prominence: Sequence[Entry], request: RecallRequest) -> list[tuple[Memory, str]]:
    """The recalled constraints the live instruction overrides, with that instruction: to confirm."""
    return [
        (e.memory, instruction)
        for e in prominence
        if (instruction := policy.overridden_by(e.memory, request.live_intent, request.query)) is not None
    ]


def _slot(memory: Memory) -> tuple[str, str] | None:
    """The single-valued slot a memory fills (its values answer one question), else None."""
    if not memory.entity or not memory.attribute or not is_single_valued(memory.attribute):
        return None
    return (normalize_value(memory.entity), memory.attribute)


def _touches(conflict: policy.Conflict, entries: dict[str, Entry]) -> bool:
    """Only conflicts involving something recall would return matter; the rest are not this query's."""
    return conflict.kept_id in entries or conflict.dropped_id in entries
