"""`sensitivity_of` reads ASCII text lowered with case-sensitive patterns (cheaper than `(?i)`): the
category must be the one the case-folding patterns give on the text as written, whatever its case."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from beliefs.records import Sensitivity
from reading import sensitivity
from reading.sensitivity import sensitivity_of

#: Words of every signal (and near misses: a longer word, a word inside another), in any case.
VOCABULARY = [
    "diagnosed", "Depression", "ANXIETY", "adhd", "chronic", "allergic", "Insulin", "panic attack",
    "muslim", "Church", "praying", "my faith", "faithful", "gay", "LGBTQ+", "came out", "coming outside",
    "Democrats", "voted for", "Tories", "political", "salary", "Debts", "owe", "earns $120k", "paid 90",
    "$5,000 a month", "home address", "apt 4", "12 Baker Street", "12 baker street", "zip code",
    "sure", "I", "my", "the", "sister", "Porto", "pizza", "weekend", "owes", "unpaid", "bowie", "k",
    ",", ".", "-", "!", "?", "'", "\n", "42", "café",
]


def reference(text: str, value: str | None = None) -> Sensitivity | None:
    """The category as the case-folding patterns read the text as written."""
    said = f"{text} {value or ''}"
    return next((category for category, pattern in sensitivity._TEXT_SIGNALS if pattern.search(said)), None)


@settings(max_examples=400, deadline=None)
@given(
    words=st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=12),
    cases=st.lists(st.sampled_from(["keep", "upper", "title", "swap"]), min_size=12, max_size=12),
    glue=st.sampled_from([" ", "", "  ", "-"]),
)
def test_the_category_is_the_case_folding_patterns_one(words, cases, glue) -> None:
    cased = [getattr(w, {"keep": "strip", "upper": "upper", "title": "title", "swap": "swapcase"}[c])()
             for w, c in zip(words, cases, strict=False)]
    text = glue.join(cased)
    assert sensitivity_of(None, None, text) == reference(text)


def test_examples_in_every_case() -> None:
    for text, expected in [
        ("I was DIAGNOSED with Asthma", Sensitivity.HEALTH),
        ("We go to CHURCH on sundays", Sensitivity.RELIGION),
        ("He Came Out last year", Sensitivity.SEXUALITY),
        ("She VOTED FOR the Greens", Sensitivity.POLITICS),
        ("I EARN $90K now", Sensitivity.FINANCES),
        ("Send it to 12 baker street", Sensitivity.LOCATION),
        ("Diagnosis in café", Sensitivity.HEALTH),  # not ASCII: the case-folding patterns read it
        ("Undiagnosable? no: a chronicle of debtors", None),
    ]:
        assert sensitivity_of(None, None, text) == reference(text) == expected, text


def test_only_lower_case_word_lists_lose_their_case_folding() -> None:
    for (category, folding), (same, ascii_) in zip(sensitivity._TEXT_SIGNALS, sensitivity._ASCII_SIGNALS, strict=True):
        assert category is same
        if category is Sensitivity.LOCATION:  # [A-Z] under (?i): kept as it is
            assert ascii_ is folding
        else:
            assert "(?i" not in ascii_.pattern and ascii_.pattern.islower()
