"""`speech_act.is_sarcasm` reads ASCII text lowered with `_NUISANCE` / `_DELIGHT` case-sensitive
(cheaper than `(?i)`): the answer must be the case-folding patterns' on the text as written."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from reading.extract import speech_act
from reading.extract.speech_act import is_sarcasm

#: Words of both lists (and near misses: a longer word, a word inside another), in any case.
VOCABULARY = [
    "love", "LOVING", "adore", "Enjoy", "favourite", "favorite", "fun", "funny", "great", "yay", "lovely",
    "stuck", "Traffic", "on hold", "cancelled", "canceled", "crash", "crashes", "crashing", "Rent", "rental",
    "waiting in line", "flat tyre", "flat tire", "spam", "spammy", "outage", "downtime", "broke", "brokenly",
    "I", "just", "being", "in", "my", "the", "again", "k", ",", ".", "-", "!", "?", "'", "\n", "42", "café",
]


def reference(sentence: str) -> bool:
    """The answer of the case-folding patterns on the sentence as written."""
    if speech_act.contains_any(sentence, speech_act._IRONY_GATE) and speech_act._IRONY.search(sentence):
        return True
    return bool(speech_act._NUISANCE.search(sentence)) and bool(speech_act._DELIGHT.search(sentence))


@settings(max_examples=400, deadline=None)
@given(
    words=st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=12),
    cases=st.lists(st.sampled_from(["keep", "upper", "title", "swap"]), min_size=12, max_size=12),
    glue=st.sampled_from([" ", "", "  ", "-"]),
)
def test_sarcasm_is_the_case_folding_patterns_answer(words, cases, glue) -> None:
    cased = [getattr(w, {"keep": "strip", "upper": "upper", "title": "title", "swap": "swapcase"}[c])()
             for w, c in zip(words, cases, strict=False)]
    sentence = glue.join(cased)
    assert is_sarcasm(sentence) == reference(sentence)


def test_examples_in_every_case() -> None:
    for sentence, expected in [
        ("I just LOVE being Stuck in TRAFFIC", True),
        ("I love my café but it's stuck", True),  # not ASCII: the case-folding patterns read it
        ("Lovely weather, the rental is fine", False),
    ]:
        assert is_sarcasm(sentence) == reference(sentence) == expected, sentence


def test_the_lowered_patterns_are_the_word_lists_without_case_folding() -> None:
    for folding, lowered in [(speech_act._NUISANCE, speech_act._NUISANCE_LOWER),
                             (speech_act._DELIGHT, speech_act._DELIGHT_LOWER)]:
        assert folding.pattern.startswith("(?i:") and folding.pattern.islower()
        assert lowered.pattern == folding.pattern.replace("(?i:", "(?:", 1)
