"""A capitalised word opening a sentence is also read as its common word, so it meets the same word
said mid-sentence; a name whose singular is a function word keeps its plural (`reading.subject`)."""

from __future__ import annotations

from reading.subject import content_terms, terms_of


def test_a_sentence_opening_word_meets_the_same_word_mid_sentence() -> None:
    opening = terms_of("Fundraising is on the 4th of May.")[0]
    later = terms_of("our fundraising dinner")[0]
    assert opening & later
    assert content_terms("Fundraising is on the 4th of May.") == opening


def test_a_name_opening_a_sentence_still_meets_itself() -> None:
    assert "marmalade" in terms_of("Marmalade died.")[0] & terms_of("our cat Marmalade")[0]


def test_a_name_mid_sentence_is_not_read_as_a_common_word() -> None:
    terms, values = terms_of("We stay near Reading.")
    assert "reading" in values and terms == {"stay", "near", "reading"}


def test_a_name_whose_singular_is_a_function_word_keeps_its_plural() -> None:
    assert "wells" in terms_of("The wedding is in Wells.")[1]


def test_times_of_day_said_as_words_are_times() -> None:
    from reading.subject import measures_of

    times = {m.value for m in measures_of("I walk the dog at lunchtime, and again at midnight") if m.kind == "time"}
    assert times == {"lunchtime", "12am"}
    assert {m.value for m in measures_of("we eat at noon")} == {"12pm"}
