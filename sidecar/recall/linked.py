"""Candidates by what a query is linked to: the entities it names and the time it names (pure).

Similarity finds beliefs that share words or meaning with the question; a question about "my
sister" or "last March" also asks for what is *linked* to them: beliefs whose entity is the sister
("user's sister", the relatives extractor's entity) or a name the query holds, and beliefs that
became true (`valid_from`) in the window `query_dates` reads. The store reads those ids in scope
(`RecallStore.linked_candidates`, the same hard filters as every candidate query; the service
reads them with the pinned rows, `pinned_and_linked`); they join the
fused candidates here, marked `linked`, and then pass the same floors and gates as any other (a
link counts as relevance evidence, like a keyword hit or a metadata match); one linked by the
entity the query names is at least as relevant as the query's best keyword hit.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from reading.subject import STOPWORDS
from sidecar.recall.config import RecallConfig
from sidecar.recall.fusion import Signals, relevance
from sidecar.recall.metadata_match import query_subject_terms
from sidecar.recall.query_dates import Window
from sinks.recall import QueryLinks

_WORD = re.compile(r"[^\W_]+")

#: How the write path names the speaker's relative without a name ("user's sister").
USER_POSSESSIVE = "user's "


def query_links(query: str, window: Window | None) -> QueryLinks:
    """The entity names a belief linked to `query` may carry (each word and subject term outside
    the date the query names, and the user's relative of that name: "user's sister"), and the
    window of that date (`query_dates.read_dates`)."""
    if window is not None:
        query = query.replace(window.said, " ")
    words = {w.casefold() for w in _WORD.findall(query)} - STOPWORDS
    names = sorted(words | query_subject_terms(query))
    entities = tuple(name for term in names for name in (term, USER_POSSESSIVE + term))
    return QueryLinks(entities, None if window is None else (window.start, window.end))


def with_linked(signals: Mapping[str, Signals], linked: Sequence[str]) -> dict[str, Signals]:
    """The fused candidates with the `linked` ids joined: one already found is marked linked, one
    only linked joins with no similarity of its own (its cosine is unknown, as for a keyword hit
    outside the dense hits)."""
    out = dict(signals)
    for memory_id in linked:
        found = out.get(memory_id)
        out[memory_id] = Signals(0.0, linked=True) if found is None else found._replace(linked=True)
    return out


def entity_link_relevance(config: RecallConfig) -> float:
    """The least relevance of a belief linked by an entity the query names: that of the query's best
    keyword hit (the name is a word the query and the belief's subject share)."""
    return relevance(None, 1.0, config)
