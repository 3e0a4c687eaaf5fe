"""One item per fact, the other way round: a belief said in full by its own returned quote folds into it (pure).

`carried_quotes` carries a quote on the belief drawn from its turn when the quote says nothing
more. When it says more ("I work as a paralegal at a firm in Dublin" against "User works at a firm in
Dublin"), the quote is the fuller item and the belief a shorter copy of it: the belief is left out
of the answer's items and named on the quote (`folded_beliefs`), its tokens given back to the
budget, its leaving named in the diagnostics. This runs on the finished answer, after the budget:
the quote was kept on its own rank, so nothing it cites or quotes around it changes.

A belief folds only when everything about it is what the quote already is: the same currency (both
current, or both labelled superseded, or possibly so), both the user's trusted voice, above the
doubtful confidence; the belief ranked by relevance or held as a profile fact (`foldable`: not a
constraint, which fires on its trigger, nor a safety fact admitted for the request's domain: those
carry their quote instead, `carried_quotes`, and are never folded away); drawn from the quote's own
turn alone; its names and numbers all in the quote and most of its words, or else every term of it
in what the quote states read again alone by the rules extractor (`reread`: "Always give me
temperatures in Celsius." states "User wants metric units."). The quote is read as the extractor
read it: its relative dates resolved at when it was said ("I ran it today", said on 26 April 2026,
holds 2026-04-26; "five years ago" said in 2026 holds 2021), and a word in another inflection is
the same word ("called" and "calls"). An item that named the belief as what replaced it names the
quote, the same statement, instead. The `prompt` block, rendered from the beliefs, is not touched.

Two beliefs drawn from the same turn alone, one saying every term of the other (same currency and
polarity), are one fact too: the shorter folds into the fuller, its carried quotes moving with it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from beliefs.records import RecallSemantics, Role
from reading.extract.relative_dates import find_time_mentions, render_absolute
from reading.subject import terms_of
from sidecar.recall.budget import estimate_tokens
from sidecar.recall.models import RecalledMemory
from sidecar.recall.reread import stated_terms
from sidecar.recall.selection import PROFILE, RANKED, Entry

FOLDED_WHY = "said in full by its own quote {quote}: folded into it (one item per fact)"
TWIN_WHY = "said in full by belief {belief} of the same turn: folded into it (one item per fact)"

#: A belief is said by its quote when at least this share of its words (beyond "user") are the quote's.
_WORDS_SAID = 0.5

#: Words a belief's third-person rewrite adds that its first-person turn never has.
_REWRITE = frozenset({"user"})

#: Below this confidence an item is offered as doubtful, not as a fact (`bench` reads it alike).
_DOUBTFUL = 0.3


#: Endings by which one word is another inflected ("call" / "called" / "calling"); a bare "d" only
#: after an "e" ("use" / "used", not "car" / "card").
_INFLECTIONS = ("s", "es", "ed", "ing")


def foldable(chosen: Iterable[Entry]) -> set[str]:
    """The ids of the chosen beliefs that may fold into their quote: ranked by relevance or held as
    profile facts; never a constraint nor anything admitted as one (a safety fact for the request's
    domain), which stays the item and carries its quote."""
    return {
        e.memory.id
        for e in chosen
        if e.tier in (PROFILE, RANKED) and e.memory.recall_semantics is not RecallSemantics.CONSTRAINT
    }


def fold_beliefs(
    items: Sequence[RecalledMemory], plain: Collection[str]
) -> tuple[list[RecalledMemory], list[tuple[str, str]], int]:
    """The answer's items with each belief its quote says in full left out and named on that quote;
    (belief id, why) of the folded ones; the tokens given back. `plain`: the ids of the beliefs that
    may fold (ranked by relevance alone, not constraints). An item that named a folded belief as what replaced it names the quote."""
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
    whys = [(i, FOLDED_WHY.format(quote=q.id)) for i, q in folded.items()]
    for item, fuller in _twins([i for i in items if i.id not in folded], plain):
        fuller.folded_beliefs.append(item.id)
        fuller.evidence += [e for e in item.evidence if e.episode_id not in {f.episode_id for f in fuller.evidence}]
        fuller.context += [t for t in item.context if t.turn_id not in {c.turn_id for c in fuller.context}]
        fuller.said_at = fuller.said_at or item.said_at
        folded[item.id] = fuller
        freed += estimate_tokens(item.text)
        whys.append((item.id, TWIN_WHY.format(belief=fuller.id)))
    for item in items:
        if item.superseded_by in folded:
            item.superseded_by = folded[item.superseded_by].id
    kept = [item for item in items if item.id not in folded]
    return kept, whys, freed


def _twins(items: Sequence[RecalledMemory], plain: Collection[str]) -> list[tuple[RecalledMemory, RecalledMemory]]:
    """(belief, fuller belief) for each foldable belief that another returned belief drawn from the same
    turn alone says in full: same currency and polarity, the user's trusted voice, every name, number
    and word of it (in any inflection) in the fuller one. Shortest first; a belief that took one in
    is not folded itself, so nothing folds into what is gone."""
    beliefs = sorted((i for i in items if i.type != "episode" and _trusted(i)), key=lambda i: len(i.text))
    pairs: list[tuple[RecalledMemory, RecalledMemory]] = []
    gone: set[str] = set()
    keepers: set[str] = set()
    for item in beliefs:
        if item.id not in plain or item.id in keepers:
            continue
        fuller = next((b for b in reversed(beliefs) if b.id not in gone and b is not item and _restates(b, item)), None)
        if fuller is not None:
            pairs.append((item, fuller))
            gone.add(item.id)
            keepers.add(fuller.id)
    return pairs


def _restates(fuller: RecalledMemory, belief: RecalledMemory) -> bool:
    """Two readings of one turn, the first saying all the second says: every term of it (names,
    numbers, words; "user" aside) is the fuller one's, in some inflection. All, not most: two facts
    of one turn share most words ("User's sister lives in Leeds", "User's brother lives in Leeds")."""
    if len(belief.citations) != 1 or fuller.citations != belief.citations:
        return False
    if _currency(fuller) != _currency(belief) or fuller.polarity != belief.polarity:
        return False
    said = terms_of(fuller.text)[0]
    return all(_in(term, said) for term in terms_of(belief.text)[0] - _REWRITE)


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
    said = _said(quote)
    if values <= said and (not words or sum(_in(w, said) for w in words) >= _WORDS_SAID * len(words)):
        return True
    if quote.said_at is None:
        return False
    read = stated_terms(quote.text, quote.said_at)  # its own reading, in other words than the quote's
    return bool(read) and all(_in(term, read) for term in words | values)


def _in(word: str, said: Iterable[str]) -> bool:
    return any(_same_word(word, s) for s in said)


def _said(quote: RecalledMemory) -> frozenset[str]:
    """The quote's terms, and those of its words with their relative dates resolved at when it was
    said, as the extractor wrote its beliefs ("today" said on 2026-04-26 is 2026-04-26)."""
    said = terms_of(quote.text)[0]
    if quote.said_at is None:
        return said
    mentions = find_time_mentions(quote.text, quote.said_at)
    return said | terms_of(render_absolute(quote.text, mentions))[0] if mentions else said


def _same_word(a: str, b: str) -> bool:
    """One word, or the same word inflected: "call" and "called", "book" and "booking"."""
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    if len(short) < 3 or not long_.startswith(short):
        return False
    ending = long_[len(short) :]
    return ending in _INFLECTIONS or (ending == "d" and short.endswith("e"))
