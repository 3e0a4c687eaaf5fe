"""Whether a query speaks of the user: a first-person word, or a name the user's own memories hold (pure).

"What's my sister's name?", "When did Caroline go hiking?" (a speaker of the user's turns) and "Which
school does Mateo go to?" (a name the user's memories hold) ask something of the user's memory;
"What's the capital of Australia?" or "Tell me a joke about penguins" do not: their words may meet a
memory ("raising capital for my start-up"), their meaning does not. A query that speaks of no one of
the user's needs stronger evidence than a shared word or a middling cosine
(`RecallConfig.impersonal_min_similarity`, measured by `bench/recall_floor.py`); a memory that means
what it asks (a cosine above that floor) still comes back.

A name is a capitalised word not opening a sentence (`reading.subject.terms_of`'s values, numbers
left out); the user's names are read from the candidates themselves (their text, entity and speaker),
so nothing is keyed to a list. A "me" or "us" right after an opening verb of telling ("tell me",
"could you give us") is the answer's recipient, not a reference to the user's life; after a verb of
doing ("find me a hotel", "help me plan") it is the user the assistant acts for.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable

from reading.subject import content_terms, terms_of

#: Words by which a query speaks of its user (casefolded; contractions keep their first part).
FIRST_PERSON = frozenset("i me my mine myself we us our ours ourselves".split())

_WORD = re.compile(r"[^\W_]+")
#: Verbs of telling: their "me" is who receives the answer ("tell me a joke"), where a verb of doing
#: ("find me a hotel", "help me plan", "book me a taxi") acts in the user's own life.
TELLING = frozenset("tell give show teach write explain".split())

#: "tell me …", "can you give me …", "please show us …": the recipient of the answer.
_RECIPIENT = re.compile(
    rf"^\W*(?:(?:please|can|could|would|will)\s+(?:you\s+)?)?(?:{'|'.join(sorted(TELLING))})\s+(?:me|us)\b",
    re.IGNORECASE,
)


@functools.lru_cache(maxsize=1024)
def first_person(query: str) -> bool:
    """The query has a first-person word other than the recipient of its opening verb."""
    words = [w.casefold() for w in _WORD.findall(_RECIPIENT.sub(" ", query, count=1))]
    return any(w in FIRST_PERSON for w in words)


@functools.lru_cache(maxsize=1024)
def query_names(query: str) -> frozenset[str]:
    """The names the query holds: capitalised words not opening a sentence, normalised, no numbers."""
    return frozenset(v for v in terms_of(query)[1] if not v[0].isdigit())


def names_in(texts: Iterable[str], extra: Iterable[str | None] = ()) -> frozenset[str]:
    """The names of the user's candidates: every capitalised content word their `texts` hold (one
    opening a sentence too: "Mateo started at Hillcrest."), and `extra` (entities, speakers), each
    normalised as a query's are."""
    found: set[str] = set()
    for text in texts:
        found |= _capitalised_terms(text)
    for name in extra:
        if name:
            found |= _name_terms(name)
    return frozenset(found)


@functools.lru_cache(maxsize=8192)
def _capitalised_terms(text: str) -> frozenset[str]:
    return content_terms(" ".join(w for w in _WORD.findall(text) if w[0].isupper()))


@functools.lru_cache(maxsize=4096)
def _name_terms(name: str) -> frozenset[str]:
    return content_terms(name)


def speaks_of_user(query: str, names: Iterable[str] | Callable[[], Iterable[str]]) -> bool:
    """Whether `query` speaks of its user: a first-person word, or one of the user's `names` (or
    what the callable answers, read only when the query has no first-person word but a name)."""
    if first_person(query):
        return True
    named = query_names(query)
    if not named:
        return False
    return not named.isdisjoint(names() if callable(names) else names)
