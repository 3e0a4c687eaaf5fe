"""One item per fact: a quote of the turn a kept belief was drawn from is carried on that belief (pure).

A belief and the turn it came from say one thing; returned side by side they cost the budget twice.
So a scored quote whose turn produced (`Episode.memory_ids`) or is cited by (`source_turn_ids`) a
kept belief of the same currency becomes that belief's evidence: its words, when and by whom they
were said, shown on the belief item, not a second entry in the ranking or the budget. Same
currency: both current, or both possibly superseded, then one item of history,
dated; a current quote is never hidden under a labelled belief, nor a labelled quote under a current one.
A quote whose every term the beliefs already say is carried, labelled or not, and changes nothing
else (no rank, no neighbouring turns); so is the quote of a constraint's turn, or of a safety fact
admitted for the request's domain, whatever it says more (the standing rule or safety fact is the item,
its reason the evidence: a safety fact is never folded away, its quote rides on it). Where a belief is the shorter copy of its
current quote, the belief folds into the quote instead, on the finished answer (`folded_beliefs`). A labelled quote that says more stays an item: carried on its
labelled belief it would either lose the rank and neighbouring turns it had as an item (LoCoMo's
temporal questions lost 4.8 points at 800 tokens) or lift its belief and crowd the budget (a
single-hop question lost). A current quote that says more is carried only with
`RecallConfig.carry_quotes_saying_more` (off by default): it would have been an item, so the belief
stands in for it (for the best such quote it carries) where it ranks above the belief, taking its
rank and offering its neighbouring turns (`context_turns`, paid for); where the belief ranks above
it, the belief stays as it was (lifting the quote's neighbours to the belief's rank crowds the
budget: measured on LoCoMo). Even then it stays an item of its own when what it says beyond the kept beliefs drawn from it
(content words, names, numbers: `reading.subject.terms_of`) is itself needed:
- it holds one of the query's terms;
- the turn says in words that it corrects, changes or ends something (`reading.statement_shape`, an
  explicit cue), or a belief drawn from it states what ended (negative polarity): the rest of the
  turn is what replaced it ("I'm no longer treasurer; I took over as secretary" against "User is no
  longer treasurer");
- it names what the beliefs leave unnamed: a name or number of the turn while the beliefs hold none
  ("I work at a small nonprofit, the Green Streets Trust" against "User works at a small nonprofit").
Every carried quote is named in the diagnostics.
"""

from __future__ import annotations

from collections.abc import Sequence

from beliefs.records import Polarity, RecallSemantics
from reading.statement_shape import read_shape
from reading.subject import STOPWORDS, content_terms, terms_of
from sidecar.recall import currency
from sidecar.recall.episodes import EpisodeEntry
from sidecar.recall.metadata_match import query_subject_terms
from sidecar.recall.selection import CONSTRAINT, Entry

CARRIED_WHY = "carried as the evidence of belief {belief}"

#: Function words whose normal form is not itself a stopword ("always" -> "alway", "please" -> "pleas").
_FILLER = frozenset().union(*(terms_of(word)[0] for word in STOPWORDS))


def carry_quotes(
    beliefs: Sequence[Entry], quotes: Sequence[EpisodeEntry], query: str = "", saying_more: bool = True
) -> tuple[list[EpisodeEntry], list[tuple[str, str]]]:
    """Attach each quote of a kept belief's turn to that belief (`Entry.evidence`, the best-ranked
    belief of its currency when the turn gave several) as the module docstring says; the quotes left
    to rank as items, and (episode id, why) of the carried ones. `saying_more`
    (`RecallConfig.carry_quotes_saying_more`): a current quote that says more is carried too, unless
    what it says more is needed for `query`."""
    asked = query_subject_terms(query)
    ranked = sorted(beliefs, key=Entry.rank_key)
    by_memory = {entry.memory.id: entry for entry in ranked}
    by_turn: dict[str, Entry] = {}
    for entry in ranked:
        for turn_id in entry.memory.source_turn_ids:
            by_turn.setdefault(turn_id, entry)
    left: list[EpisodeEntry] = []
    taken: list[tuple[str, str]] = []
    stand_ins: dict[int, tuple[Entry, EpisodeEntry]] = {}  # belief -> the best quote it carries that says more
    for quote in quotes:
        owners = _owners(quote, by_memory, by_turn)
        if not owners:
            left.append(quote)
            continue
        rules = [entry for entry in owners if _standing(entry)]
        covered = bool(rules) or _covered(quote, owners)
        carried = covered or (saying_more and not _labelled(quote) and not _more_needed(quote, owners, asked))
        if not carried:
            left.append(quote)
            continue
        owner = min(rules or owners, key=Entry.rank_key)
        owner.evidence.append(quote.episode)
        if not covered:  # it would have been an item: the belief stands in for the best such quote
            standing = stand_ins.get(id(owner))
            if standing is None or quote.score.value > standing[1].score.value:
                stand_ins[id(owner)] = (owner, quote)
        taken.append((quote.episode.id, CARRIED_WHY.format(belief=owner.memory.id)))
    for owner, quote in stand_ins.values():  # where the quote ranks above it: its rank and the turns around it
        if quote.score.value >= owner.score.value:
            owner.score = owner.score._replace(value=quote.score.value)
            owner.neighbours += [m for m in quote.neighbours if m.turn_id not in owner.memory.source_turn_ids]
    for entry in beliefs:
        entry.evidence.sort(key=lambda e: (e.said_at, e.turn_id))
        carried_ids = {e.id for e in entry.evidence}
        entry.neighbours = list({m.id: m for m in entry.neighbours if m.id not in carried_ids}.values())
    return left, taken


def _owners(quote: EpisodeEntry, by_memory: dict[str, Entry], by_turn: dict[str, Entry]) -> list[Entry]:
    """The kept beliefs drawn from the quote's turn that read as it does: both current, or both
    possibly superseded (history, dated). A current quote is never hidden under a belief labelled
    not current, nor a labelled one under a current belief, nor a quote replaced outright under a
    belief only possibly so (its firmer label would be lost)."""
    owners = [by_memory[i] for i in quote.episode.memory_ids if i in by_memory]
    turn_owner = by_turn.get(quote.episode.turn_id)
    if turn_owner is not None and turn_owner not in owners:
        owners.append(turn_owner)
    return [entry for entry in owners if _belief_currency(entry) == _quote_currency(quote)]


def _standing(entry: Entry) -> bool:
    """A standing rule or a fact that fires on the request's kind, not on the query's words: a
    constraint, or any entry admitted as one (a safety fact in its domain, a constraint a live
    instruction speaks of). It is the item, whatever its quote says more; the quote is its reason."""
    return entry.memory.recall_semantics is RecallSemantics.CONSTRAINT or entry.tier == CONSTRAINT


def _covered(quote: EpisodeEntry, owners: Sequence[Entry]) -> bool:
    """Every term of the quote is in one of the beliefs drawn from it: the quote says nothing more."""
    said = set().union(*(_terms(entry.memory.text) for entry in owners))
    return _terms(quote.episode.text) <= said


def _more_needed(quote: EpisodeEntry, owners: Sequence[Entry], asked: frozenset[str]) -> bool:
    """The quote says something none of the beliefs drawn from it says, and that is needed (the
    module docstring's three cases)."""
    said = set().union(*(_terms(entry.memory.text) for entry in owners))
    more = _terms(quote.episode.text) - said
    if not more:
        return False
    if _asks_for(more, said, asked) or any(entry.memory.polarity is Polarity.NEGATIVE for entry in owners):
        return True
    shape = read_shape(quote.episode.text)
    if shape is not None and shape.explicit:
        return True
    named = set().union(*(terms_of(entry.memory.text)[1] for entry in owners))
    return not named and not more.isdisjoint(terms_of(quote.episode.text)[1])


def _asks_for(more: set[str], said: set[str], asked: frozenset[str]) -> bool:
    """A query term the quote holds beyond the beliefs, spelt in no near way by them ("favourite"
    against a belief's "favorite" is the same word)."""
    return any(
        any(_near(term, word) for word in more) and not any(_near(term, word) for word in said) for term in asked
    )


def _near(a: str, b: str) -> bool:
    """The same word: equal, or both long and one letter apart (added, dropped or changed)."""
    if a == b:
        return True
    if min(len(a), len(b)) < 5 or abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), len(a))
    return a[i + (len(a) == len(b)) :] == b[i + 1 :]


def _terms(text: str) -> frozenset[str]:
    return content_terms(text) - _FILLER


def _labelled(quote: EpisodeEntry) -> bool:
    return quote.superseded or quote.currency.possibly_superseded


def _quote_currency(quote: EpisodeEntry) -> tuple[bool, bool]:
    """(replaced outright, possibly replaced): a returned belief is never the first."""
    return quote.superseded, quote.currency.possibly_superseded and not quote.superseded


def _belief_currency(entry: Entry) -> tuple[bool, bool]:
    return False, currency.of_memory(entry.memory).possibly_superseded
