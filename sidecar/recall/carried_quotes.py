"""One item per fact: a quote of the turn a kept belief was drawn from is carried on that belief (pure).

A belief and the turn it came from say one thing; returned side by side they cost the budget twice.
So a scored quote whose turn produced (`Episode.memory_ids`) or is cited by (`source_turn_ids`) a
belief `select` kept becomes that belief's evidence: its words, when and by whom they were said,
shown on the belief item, not a second entry in the ranking or the budget. A quote stays an item of
its own when no kept belief came from its turn; when it is labelled (superseded or possibly so); and
when it says more than the kept beliefs drawn from it: a content word, name or number of the turn
(`reading.subject.terms_of`) that none of them has ("I quit squash and took up swimming" against a
belief that lost the swimming) is a second fact, not a duplicate. Every carried quote is named in the
diagnostics.
"""

from __future__ import annotations

from collections.abc import Sequence

from reading.subject import STOPWORDS, terms_of
from sidecar.recall.episodes import EpisodeEntry
from sidecar.recall.select import Entry

CARRIED_WHY = "carried as the evidence of belief {belief}"

#: Function words whose normal form is not itself a stopword ("always" -> "alway", "please" -> "pleas").
_FILLER = frozenset().union(*(terms_of(word)[0] for word in STOPWORDS))


def carry_quotes(
    beliefs: Sequence[Entry], quotes: Sequence[EpisodeEntry]
) -> tuple[list[EpisodeEntry], list[tuple[str, str]]]:
    """Attach each quote of a kept belief's turn to that belief (`Entry.evidence`, the best-ranked
    belief when the turn gave several); the quotes left to rank as items, and (episode id, why) of the
    carried ones."""
    ranked = sorted(beliefs, key=Entry.rank_key)
    by_memory = {entry.memory.id: entry for entry in ranked}
    by_turn: dict[str, Entry] = {}
    for entry in ranked:
        for turn_id in entry.memory.source_turn_ids:
            by_turn.setdefault(turn_id, entry)
    left: list[EpisodeEntry] = []
    carried: list[tuple[str, str]] = []
    for quote in quotes:
        owners = [] if _labelled(quote) else _owners(quote, by_memory, by_turn)
        owner = min(owners, key=Entry.rank_key) if owners and _covered(quote, owners) else None
        if owner is None:
            left.append(quote)
            continue
        owner.evidence.append(quote.episode)
        carried.append((quote.episode.id, CARRIED_WHY.format(belief=owner.memory.id)))
    for entry in beliefs:
        entry.evidence.sort(key=lambda e: (e.said_at, e.turn_id))
    return left, carried


def _owners(quote: EpisodeEntry, by_memory: dict[str, Entry], by_turn: dict[str, Entry]) -> list[Entry]:
    """The kept beliefs drawn from the quote's turn."""
    owners = [by_memory[i] for i in quote.episode.memory_ids if i in by_memory]
    turn_owner = by_turn.get(quote.episode.turn_id)
    if turn_owner is not None and turn_owner not in owners:
        owners.append(turn_owner)
    return owners


def _covered(quote: EpisodeEntry, owners: Sequence[Entry]) -> bool:
    """Every term of the quote is in one of the beliefs drawn from it: the quote says nothing more."""
    said = set().union(*(_terms(entry.memory.text) for entry in owners))
    return _terms(quote.episode.text) <= said


def _terms(text: str) -> frozenset[str]:
    return terms_of(text)[0] - _FILLER


def _labelled(quote: EpisodeEntry) -> bool:
    return quote.superseded or quote.currency.possibly_superseded
