"""Keyword evidence: a query term meets a candidate's word when equal or sharing five letters."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from reading.subject import content_terms
from sidecar.recall.metadata_match import PREFIX, says_a_term

_WORDS = st.sampled_from(
    "allergy allergic sister sisters lives Lisbon Lisbonne wedding weddings booked booking one on the 1,450".split()
)


@given(st.lists(_WORDS | st.text(max_size=8), max_size=6), st.lists(_WORDS, max_size=10).map(" ".join))
@settings(max_examples=300, deadline=None)
def test_a_query_term_meets_a_word_by_equality_or_five_letters(terms: list[str], text: str) -> None:
    def meet(a: str, b: str) -> bool:
        return a == b or (len(a) >= PREFIX and len(b) >= PREFIX and a[:PREFIX] == b[:PREFIX])

    query = frozenset(terms)
    assert says_a_term(text, query) == any(meet(t, w) for t in query for w in content_terms(text))
