"""A belief said in full by its own returned quote folds into it: one item per fact."""

from __future__ import annotations

from datetime import UTC, datetime

from beliefs.records import Role
from sidecar.recall.budget import estimate_tokens
from sidecar.recall.folded_beliefs import _same_word, fold_beliefs
from sidecar.recall.models import QuoteEvidence, RecalledMemory

NOW = datetime(2026, 5, 1, tzinfo=UTC)


def item(id_: str, text: str, turn: str, kind: str = "fact", **fields) -> RecalledMemory:
    return RecalledMemory(
        id=id_, text=text, type=kind, confidence=fields.pop("confidence", 0.9), effective_confidence=0.9,
        score=0.5, recall_reason="matched query", citations=[turn, *fields.pop("context", [])], valid_from=NOW,
        **({"role": Role.USER} if kind == "episode" else {}), **fields,
    )  # fmt: skip


BELIEF = item("m1", "User works at a firm in Dublin.", "t1")
QUOTE = item("e1", "I work as a paralegal at a firm in Dublin, mostly property.", "t1", "episode", context=["t0"])


def test_a_belief_its_own_quote_says_in_full_folds_into_the_quote():
    belief, quote = BELIEF.model_copy(), QUOTE.model_copy(deep=True)
    kept, folded, freed = fold_beliefs([belief, quote], plain={"m1"})
    assert [k.id for k in kept] == ["e1"]
    assert kept[0].folded_beliefs == ["m1"]
    assert folded == [("m1", "said in full by its own quote e1: folded into it (one item per fact)")]
    assert freed == estimate_tokens(belief.text)


def test_what_the_quote_does_not_say_or_is_not_its_own_stays_an_item():
    other_name = item("m2", "User works at Hale & Co.", "t1")  # a name the quote does not hold
    other_turn = item("m3", "User works at a firm in Dublin.", "t0")  # drawn from the quote's context turn
    two_turns = item("m4", "User works at a firm in Dublin.", "t1", context=["t9"])  # drawn from two turns
    constraint = BELIEF.model_copy(update={"id": "m5"})  # not plain: a constraint fires on its trigger
    items = [other_name, other_turn, two_turns, constraint, QUOTE.model_copy(deep=True)]
    kept, folded, _ = fold_beliefs(items, plain={"m2", "m3", "m4"})
    assert [k.id for k in kept] == ["m2", "m3", "m4", "m5", "e1"] and folded == []


def test_only_the_same_currency_and_trust_fold():
    labelled = BELIEF.model_copy(update={"possibly_superseded": True, "superseded_by": "m9"})
    kept, folded, _ = fold_beliefs([labelled, QUOTE.model_copy(deep=True)], plain={"m1"})
    assert len(kept) == 2 and folded == []  # a labelled belief never hides under a current quote
    both = [labelled, QUOTE.model_copy(update={"possibly_superseded": True}, deep=True)]
    kept, folded, _ = fold_beliefs(both, plain={"m1"})
    assert [k.id for k in kept] == ["e1"]  # history, once
    doubtful = QUOTE.model_copy(update={"confidence": 0.3}, deep=True)
    assert len(fold_beliefs([BELIEF.model_copy(), doubtful], plain={"m1"})[0]) == 2
    assistant = QUOTE.model_copy(update={"role": Role.ASSISTANT}, deep=True)
    assert len(fold_beliefs([BELIEF.model_copy(), assistant], plain={"m1"})[0]) == 2


def test_an_item_that_named_the_folded_belief_as_its_replacement_names_the_quote():
    older = item("m0", "User works at Vandelay.", "t-old", possibly_superseded=True, superseded_by="m1")
    kept, _, _ = fold_beliefs([older, BELIEF.model_copy(), QUOTE.model_copy(deep=True)], plain={"m1"})
    assert [k.id for k in kept] == ["m0", "e1"] and kept[0].superseded_by == "e1"


SAID = datetime(2026, 4, 26, 15, 0, tzinfo=UTC)


def _quote(text: str, said_at: datetime | None = SAID) -> RecalledMemory:
    return item("e2", text, "t2", "episode", said_at=said_at)


def test_the_quote_is_read_with_its_relative_dates_resolved_at_when_it_was_said():
    race = item("m6", "User ran the half marathon in Exeter on 2026-04-26.", "t2")
    kept, folded, _ = fold_beliefs([race, _quote("I ran the half marathon in Exeter today, never again.")], {"m6"})
    assert [k.id for k in kept] == ["e2"] and [i for i, _ in folded] == ["m6"]
    years = item("m7", "User has lived in Aarhus since 2021.", "t2")
    kept, _, _ = fold_beliefs([years, _quote("We've lived in Aarhus since five years ago, love it.")], {"m7"})
    assert [k.id for k in kept] == ["e2"]


def test_a_date_the_quote_does_not_resolve_to_stays_its_beliefs_own():
    other_day = item("m6", "User ran the half marathon in Exeter on 2026-04-19.", "t2")
    kept, folded, _ = fold_beliefs([other_day, _quote("I ran the half marathon in Exeter today.")], {"m6"})
    assert len(kept) == 2 and folded == []
    undated = _quote("I ran the half marathon in Exeter today.", said_at=None)  # when it was said is unknown
    race = item("m6", "User ran the half marathon in Exeter on 2026-04-26.", "t2")
    assert len(fold_beliefs([race, undated], {"m6"})[0]) == 2


def test_a_word_in_another_inflection_is_the_same_word():
    name = item("m8", "User prefers to be called Kes.", "t2", kind="preference")
    kept, _, _ = fold_beliefs([name, _quote("I go by Kes now, even my mum calls me that.")], {"m8"})
    assert [k.id for k in kept] == ["e2"]  # "called" is "calls"; with "Kes", two of its three words
    other = item("m8", "User prefers to be addressed as Kes.", "t2", kind="preference")
    assert len(fold_beliefs([other, _quote("I go by Kes now, even my mum calls me that.")], {"m8"})[0]) == 2


def test_a_belief_another_of_the_same_turn_says_in_full_folds_into_it_with_its_quote():
    evidence = QuoteEvidence(
        episode_id="e3", turn_id="t3", role=Role.USER, said_at=SAID, text="Our daughter Noor plays for Parkside under-10s."
    )  # fmt: skip
    short = item("m1", "User has a daughter Noor.", "t3", evidence=[evidence], said_at=SAID)
    full = item("m2", "User's daughter Noor plays in the under-10 team at Parkside.", "t3")
    kept, folded, freed = fold_beliefs([full, short], plain={"m1", "m2"})
    assert [k.id for k in kept] == ["m2"] and kept[0].folded_beliefs == ["m1"]
    assert kept[0].evidence == [evidence] and kept[0].said_at == SAID  # the quote it carried is not lost
    assert folded == [("m1", "said in full by belief m2 of the same turn: folded into it (one item per fact)")]
    assert freed == estimate_tokens(short.text)


def test_two_facts_of_one_turn_sharing_most_words_both_stay():
    sister = item("m1", "User's sister lives in Leeds.", "t3")
    brother = item("m2", "User's brother lives in Leeds and teaches maths.", "t3")
    assert len(fold_beliefs([sister, brother], plain={"m1", "m2"})[0]) == 2  # "sister" is only the first's
    other_turn = item("m3", "User has a daughter Noor.", "t4")
    full = item("m2", "User's daughter Noor plays in the under-10 team at Parkside.", "t3")
    assert len(fold_beliefs([other_turn, full], plain={"m2", "m3"})[0]) == 2  # another turn: not this reading
    ended = item("m4", "User has a daughter Noor.", "t3", polarity="negative")
    assert len(fold_beliefs([ended, full], plain={"m2", "m4"})[0]) == 2
    labelled = item("m5", "User has a daughter Noor.", "t3", possibly_superseded=True)
    assert len(fold_beliefs([labelled, full], plain={"m2", "m5"})[0]) == 2
    typed = item("m6", "User has a daughter Noor.", "t3")  # a safety fact or constraint: not foldable
    assert len(fold_beliefs([typed, full], plain={"m2"})[0]) == 2


def test_a_belief_in_other_words_folds_when_its_quote_read_alone_states_it():
    units = item("m9", "User wants metric units.", "t2", kind="preference")
    quote = _quote("From now on give me distances in kilometres.")
    kept, folded, _ = fold_beliefs([units, quote], {"m9"})
    assert [k.id for k in kept] == ["e2"] and [i for i, _ in folded] == ["m9"]


def test_a_reading_that_needed_another_turn_is_not_said_by_the_quote_alone():
    fare = item("m9", "User's rail pass costs 120 a month.", "t2")  # its subject was said in an earlier turn
    assert len(fold_beliefs([fare, _quote("Sorry, it's 120, not 90.")], {"m9"})[0]) == 2


def test_another_word_that_merely_starts_alike_is_not_an_inflection():
    assert _same_word("use", "used") and _same_word("book", "booking") and _same_word("call", "called")
    assert not _same_word("car", "card") and not _same_word("pen", "pension") and not _same_word("at", "ats")
