"""One item per fact, the other way round: a belief said in full by its own returned quote folds into it (pure).

`carried_quotes` carries a quote on the belief drawn from its turn when the quote says nothing
more. When it says more ("I work as a paralegal at a firm in Dublin" against "User works at a firm in
Dublin"), the quote is the fuller item and the belief a shorter copy of it: the belief is left out
of the answer's items and named on the quote (`folded_beliefs`), its tokens given back to the
budget, its leaving named in the diagnostics. This runs on the finished answer, after the budget:
the quote was kept on its own rank, so nothing it cites or quotes around it changes.

A belief folds only when everything about it is what the quote already is: the same currency (both
current, or both labelled superseded, or possibly so), both the user's trusted voice, above the
doubtful confidence; the belief not a constraint (it fires on its trigger: its quote is carried on it
instead, `carried_quotes`); drawn from the quote's own turn alone; its names and numbers all in the
quote, and most of its words. An item that named the belief as what replaced it names the quote,
the same statement, instead. The `prompt` block, rendered from the beliefs, is not touched.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from beliefs.records import Role
from reading.subject import terms_of
from sidecar.recall.budget import estimate_tokens
from sidecar.recall.models import RecalledMemory

FOLDED_WHY = "said in full by its own quote {quote}: folded into it (one item per fact)"

#: A belief is said by its quote when at least this share of its words (beyond "user") are the quote's.
_WORDS_SAID = 0.5

#: Words a belief's third-person rewrite adds that its first-person turn never has.
_REWRITE = frozenset({"user"})

#: Below this confidence an item is offered as doubtful, not as a fact (`bench` reads it alike).
_DOUBTFUL = 0.3


def fold_beliefs(
    items: Sequence[RecalledMemory], plain: Collection[str]
) -> tuple[list[RecalledMemory], list[tuple[str, str]], int]:
    """The answer's items with each belief its quote says in full left out and named on that quote;
    (belief id, why) of the folded ones; the tokens given back. `plain`: the ids of the beliefs that
    may fold (not constraints). An item that named a folded belief as what replaced it names the quote."""
    quotes = [item for item in items if item.type == "episode" and _trusted(item)]
    folded: dict[str, RecalledMemory] = {}
    freed = 0
    for item in items:
        if item.type == "episode" or item.id not in plain or not _trusted(item):
            continue
        quote = next((q for q in quotes if _currency(q) == _currency(item) and _says(q, item)), None)
        if quote is not None:
            quote.folded_beliefs.append(item.id)
            folded[item.id] = quote
            freed += estimate_tokens(item.text)
    for item in items:
        if item.superseded_by in folded:
            item.superseded_by = folded[item.superseded_by].id
    kept = [item for item in items if item.id not in folded]
    return kept, [(i, FOLDED_WHY.format(quote=q.id)) for i, q in folded.items()], freed


def _trusted(item: RecalledMemory) -> bool:
    return item.trust == "trusted" and (item.role or item.source_role) is Role.USER and item.confidence > _DOUBTFUL


def _currency(item: RecalledMemory) -> tuple[bool, bool]:
    return item.superseded, item.possibly_superseded


def _says(quote: RecalledMemory, belief: RecalledMemory) -> bool:
    """The belief was drawn from the quote's own turn alone, and the quote holds its names, numbers and
    most words."""
    if not belief.citations or set(belief.citations) != {quote.citations[0]}:
        return False
    words, values = terms_of(belief.text)
    words, values = words - _REWRITE, values - _REWRITE
    said = terms_of(quote.text)[0]
    if not values <= said:
        return False
    return not words or len(words & said) >= _WORDS_SAID * len(words)
