"""How many of the query's subject terms a memory's metadata names: entity, attribute, topic (pure).

Text similarity reads a belief's paraphrase; its structured fields say what it is about. A question
about "my sister" or "where I live" names the entity (`sister`) or the attribute (`lives_in`) of the
beliefs that answer it even when the paraphrase scores low. Terms are `reading.subject.content_terms`
(casefolded, plurals and light stems folded, function words and "user" left out); two terms meet when
equal or, both at least five letters long, sharing their first five ("allergy" and "allergic").
"""

from __future__ import annotations

import functools

from beliefs.records import Memory
from reading.subject import content_terms

PREFIX = 5


@functools.lru_cache(maxsize=1024)
def query_subject_terms(query: str) -> frozenset[str]:
    """The query's subject terms (remembered: a recall reads them once per candidate)."""
    return content_terms(query)


@functools.lru_cache(maxsize=8192)
def _field_terms(entity: str | None, attribute: str | None, topic: str | None) -> frozenset[str]:
    words = " ".join(part.replace("_", " ") for part in (entity, attribute, topic) if part)
    return content_terms(words)


def metadata_matches(memory: Memory, query_terms: frozenset[str]) -> int:
    """How many of `query_terms` the memory's entity, attribute and topic name."""
    if not query_terms:
        return 0
    named = _field_terms(memory.entity, memory.attribute, memory.topic)
    return sum(1 for term in query_terms if any(_meet(term, field) for field in named))


def _meet(a: str, b: str) -> bool:
    if a == b:
        return True
    return len(a) >= PREFIX and len(b) >= PREFIX and a[:PREFIX] == b[:PREFIX]


@functools.lru_cache(maxsize=8192)
def _text_terms(text: str) -> frozenset[str]:
    return content_terms(text)


def says_a_term(text: str, query_terms: frozenset[str]) -> bool:
    """Whether `text` holds one of `query_terms` as a content word of its own (normalised as they
    are): what makes a keyword hit evidence. The full-text index stems more boldly ("one" and "on"
    meet there) and reads words `terms_of` leaves out as carrying no subject."""
    if not query_terms:
        return False
    said = _text_terms(text)
    return any(_meet(term, word) for term in query_terms for word in said)


def entity_matches(memory: Memory, query_terms: frozenset[str]) -> bool:
    """Whether the memory's entity names one of `query_terms`."""
    named = _field_terms(memory.entity, None, None)
    return any(_meet(term, field) for term in query_terms for field in named)
