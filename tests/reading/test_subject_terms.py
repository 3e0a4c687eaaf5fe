"""`content_terms` is `terms_of`'s terms without the values (recall reads it per candidate)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from reading.subject import content_terms, terms_of

_WORDS = st.sampled_from(
    "I my Dara's wedding the weddings 1,450 21st Mr. Dr. Smith moved to Lisbon. and, but! "
    "four espressos one 5km booked booking freelancing It's Paris? now really user’s".split()
)


@given(st.lists(_WORDS, max_size=14).map(" ".join) | st.text(max_size=60))
@settings(max_examples=300, deadline=None)
def test_content_terms_are_the_terms_of(text: str) -> None:
    assert content_terms(text) == terms_of(text)[0]


def test_values_are_names_and_numbers() -> None:
    assert terms_of("Moved to Lisbon with Dara, 21st of May. Paris next.")[1] == frozenset({"lisbon", "dara", "21"})  # "May" reads as "may"; "Paris" opens a sentence
    assert terms_of("Mr. Smith said four")[1] == frozenset({"smith", "four"})

