"""How many of the query's subject terms a memory's metadata names: entity, attribute, topic (pure).

Text similarity reads a belief's paraphrase; its structured fields say what it is about. A question
about "my sister" or "where I live" names the entity (`sister`) or the attribute (`lives_in`) of the
beliefs that answer it even when the paraphrase scores low. Terms are `reading.subject.content_terms`
(casefolded, plurals and light stems folded, function words and "user" left out); two terms meet when
equal or, both at least five letters long, sharing their first five ("allergy" and "allergic").
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from beliefs.records import Memory
from reading.subject import content_terms

PREFIX = 5


@functools.lru_cache(maxsize=1024)
def query_subject_terms(query: str) -> frozenset[str]:
    """The query's subject terms (remembered: a recall reads them once per candidate)."""
    return content_terms(query)


@functools.lru_cache(maxsize=8192)
def _field_terms(entity: str | None, attribute: str | None, topic: str | None) -> _Keys:
    words = " ".join(part.replace("_", " ") for part in (entity, attribute, topic) if part)
    return _keys(content_terms(words))


class _Keys(NamedTuple):
    """A text's terms, and the first `PREFIX` letters of those at least that long: a term meets one
    of them when it is one, or is that long and its prefix is one of theirs."""

    terms: frozenset[str]
    prefixes: frozenset[str]

    def meets(self, term: str) -> bool:
        return term in self.terms or (len(term) >= PREFIX and term[:PREFIX] in self.prefixes)


def _keys(terms: frozenset[str]) -> _Keys:
    return _Keys(terms, frozenset(t[:PREFIX] for t in terms if len(t) >= PREFIX))


def metadata_matches(memory: Memory, query_terms: frozenset[str]) -> int:
    """How many of `query_terms` the memory's entity, attribute and topic name."""
    if not query_terms:
        return 0
    named = _field_terms(memory.entity, memory.attribute, memory.topic)
    return sum(1 for term in query_terms if named.meets(term))


@functools.lru_cache(maxsize=8192)
def _text_terms(text: str) -> _Keys:
    return _keys(content_terms(text))


def says_a_term(text: str, query_terms: frozenset[str]) -> bool:
    """Whether `text` holds one of `query_terms` as a content word of its own (normalised as they
    are): what makes a keyword hit evidence. The full-text index stems more boldly ("one" and "on"
    meet there) and reads words `terms_of` leaves out as carrying no subject."""
    if not query_terms:
        return False
    said = _text_terms(text)
    return any(said.meets(term) for term in query_terms)


def entity_matches(memory: Memory, query_terms: frozenset[str]) -> bool:
    """Whether the memory's entity names one of `query_terms`."""
    named = _field_terms(memory.entity, None, None)
    return any(named.meets(term) for term in query_terms)
