"""The words of a query worth a keyword search: no stopwords, no one-letter noise (pure)."""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+")

#: Function words that would match nearly every memory ("the user ...", "I ...").
STOPWORDS = frozenset(
    """a about above after again all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has
    have having he her here hers herself him himself his how i if in into is it its itself just me
    more most my myself no nor not now of off on once only or other our ours ourselves out over own
    same she should so some such than that the their theirs them themselves then there these they
    this those through to too under until up user users very was we were what when where which while
    who whom why will with would you your yours yourself yourselves""".split()
)

#: Most terms taken from one query.
MAX_TERMS = 16


def query_terms(query: str) -> list[str]:
    """Distinct casefolded words of `query` in order, without stopwords and single letters."""
    words = (w for w in _WORD.findall(query.casefold()) if len(w) > 1 and w not in STOPWORDS)
    return list(dict.fromkeys(words))[:MAX_TERMS]
