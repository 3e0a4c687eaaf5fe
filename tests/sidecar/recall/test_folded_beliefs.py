"""A belief said in full by its own returned quote folds into it: one item per fact."""

from __future__ import annotations

from datetime import UTC, datetime

from beliefs.records import Role
from sidecar.recall.budget import estimate_tokens
from sidecar.recall.folded_beliefs import fold_beliefs
from sidecar.recall.models import RecalledMemory

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
