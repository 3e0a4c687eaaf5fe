"""Which sensitive memories a request may see, and which safety facts it must see (pure).

A special-category memory (`Memory.sensitivity`, set at write time by `reading.sensitivity`) is
recalled only when the request is in its domain (read from the query, the action's domain and the
topic), when the question asks about it (its cosine to the query reaches `asked_min_similarity`: "What's
my postcode?" is in the domain of the postcode, whatever words place a request in `location`), or
when the caller names its category in `include_sensitive`; a profile fact is no
exception (a diagnosis is part of who the user is, and still not for every answer) unless it is a
safety fact.
A safety fact (an allergy, a medical need, a dietary restriction, accessibility) is the opposite
case: for a request in a safety domain (food, medication, travel, activities) it surfaces whatever
its similarity, the way a constraint fires on its trigger.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable

from beliefs.records import Memory, Polarity, RecallSemantics, Sensitivity
from reading.domains import canonical_domain, domains_of, widened
from reading.sensitivity import (
    SAFETY_ATTRIBUTES,
    SAFETY_DOMAINS,
    is_gender_identity,
    is_mental_health,
    is_safety_fact,
    sensitivity_of,
)

#: The request domains in which a category of sensitive memory belongs. An observance keeps times
#: (Mass on Sunday, a fast), so religion bears on planning the user's time.
SENSITIVE_DOMAINS: dict[str, frozenset[str]] = {
    Sensitivity.HEALTH.value: frozenset({"health", "medication"}),
    Sensitivity.RELIGION.value: frozenset({"religion", "schedule"}),
    Sensitivity.SEXUALITY.value: frozenset({"sexuality"}),
    Sensitivity.POLITICS.value: frozenset({"politics"}),
    Sensitivity.FINANCES.value: frozenset({"finances"}),
    Sensitivity.LOCATION.value: frozenset({"location", "travel"}),
}

#: Where some conditions bear beyond their category's domains: a mental-health condition on study and
#: social occasions (ADHD for a revision plan, social anxiety for a party), gender identity on health care.
MENTAL_HEALTH_DOMAINS = frozenset({"study", "social"})
GENDER_IDENTITY_DOMAINS = frozenset({"health", "medication"})


def bearing_domains(category: str, text: str) -> frozenset[str]:
    """The request domains where a fact of `category` saying `text` bears (its category's, widened by
    what the condition is: `MENTAL_HEALTH_DOMAINS`, `GENDER_IDENTITY_DOMAINS`)."""
    domains = SENSITIVE_DOMAINS.get(category, frozenset({category}))
    if category == Sensitivity.HEALTH.value and _mental_health(text):
        domains |= MENTAL_HEALTH_DOMAINS
    if category == Sensitivity.SEXUALITY.value and _gender_identity(text):
        domains |= GENDER_IDENTITY_DOMAINS
    return domains


_mental_health = functools.lru_cache(maxsize=4096)(is_mental_health)
_gender_identity = functools.lru_cache(maxsize=4096)(is_gender_identity)

#: `include_sensitive` value that admits every category.
ALL_CATEGORIES = "all"


@functools.lru_cache(maxsize=1024)
def request_domains(query: str, action_domain: str | None = None, topic: str | None = None) -> frozenset[str]:
    """The domains a request is in: its query's words, its action's domain, its topic (remembered, as
    `QueryEmbedder` remembers a repeated query's embedding: reading them runs a regex per domain)."""
    named = {canonical_domain(d) for d in (action_domain, topic) if d}
    return widened(set(domains_of(query)) | named)


@functools.lru_cache(maxsize=4096)
def _about(text: str) -> frozenset[str]:
    """The domains a memory's or a quote's own words are about (remembered: the same texts recur)."""
    return domains_of(text)


def safety_needed(domains: frozenset[str]) -> tuple[str, ...]:
    """The safety attributes to read for a request in `domains` (none outside the safety domains)."""
    return tuple(sorted(SAFETY_ATTRIBUTES)) if domains & SAFETY_DOMAINS else ()


def is_safety_memory(memory: Memory) -> bool:
    """A current positive safety fact: an allergy or medical need, not a retraction or a constraint."""
    if memory.polarity is Polarity.NEGATIVE or memory.recall_semantics is RecallSemantics.CONSTRAINT:
        return False
    return _safety_fact(memory.attribute, memory.text)


#: `is_safety_fact` remembered by (attribute, text): its regex would run on every candidate of every
#: request in a safety domain, and a user's memories (their safety facts first) recur across recalls.
_safety_fact = functools.lru_cache(maxsize=4096)(is_safety_fact)


def safety_fires(memory: Memory, domains: frozenset[str]) -> bool:
    """A safety fact for a request in a safety domain: it must reach the prompt."""
    return bool(domains & SAFETY_DOMAINS) and is_safety_memory(memory)


def sensitive_outside(
    memory: Memory, domains: frozenset[str], include: Iterable[str] = (), asked: bool = False
) -> str | None:
    """Why a sensitive memory stays out of this request, or None when it may be recalled. `asked`: the
    question asks about it (its cosine reaches `RecallConfig.asked_min_similarity`): it bears on it."""
    if asked or memory.sensitivity is None or (memory.profile and is_safety_memory(memory)):
        return None  # a safety fact of the profile (deafness) is matched on relevance as any profile fact
    return _outside(memory.sensitivity, memory.text, domains, include, lambda: safety_fires(memory, domains))


def sensitive_words_outside(
    text: str, domains: frozenset[str], include: Iterable[str] = (), asked: bool = False
) -> str | None:
    """Why a quote whose own words are special-category data (`reading.sensitivity`) stays out of this
    request, or None: a quote is as sensitive as what it says, whatever beliefs were made of it.
    `asked`: the question asks about what it says (as for `sensitive_outside`)."""
    category = None if asked else sensitivity_of(None, None, text)
    if category is None:
        return None
    safety = lambda: bool(domains & SAFETY_DOMAINS) and _safety_fact(None, text)  # noqa: E731
    why = _outside(category, text, domains, include, safety)
    return None if why is None else f"{why} (the quote's words)"


def _outside(
    category: str, text: str, domains: frozenset[str], include: Iterable[str], safety: Callable[[], bool]
) -> str | None:
    """Outside unless asked for, in its category's domains (`bearing_domains`), in a domain its own words are about ("in
    recovery from an eating disorder, never mention calories" belongs to food), or a safety fact."""
    asked = {c.casefold() for c in include}
    if ALL_CATEGORIES in asked or category in asked:
        return None
    if domains & bearing_domains(category, text):
        return None
    if domains & _about(text):
        return None
    if safety():
        return None
    return f"sensitive ({category}) outside its domain"
