"""Beliefs and quoted episodes in one answer: one ranking, one budget, beliefs first (pure).

The beliefs `select` kept and the scored episodes compete for `limit` and `budget_tokens` by
(tier, score): fired constraints and the profile block first, then ranked beliefs and episodes by
`recall_score`. In the answer the kept beliefs come first, in their own prompt order, then the
episodes as a transcript (oldest first); `score` keeps the ranking readable. A short reply that ranks
on the turn beside it gives that turn its place (`saying_more`): the item carries the words that answer.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from beliefs.episodes import Episode
from reading.subject import terms_of
from sidecar.recall import currency
from sidecar.recall.budget import Filler, Trimmed
from sidecar.recall.diagnostics import CandidateSources
from sidecar.recall.episodes import EpisodeEntry
from sidecar.recall.models import EpisodeTurn, RecalledMemory
from sidecar.recall.prompt_order import prompt_order
from sidecar.recall.selection import RANKED, Entry, Selection

Item = Entry | EpisodeEntry


@dataclass(frozen=True)
class Merged:
    selection: Selection  # the kept beliefs, the joint suppressions and tokens
    episodes: list[EpisodeEntry]  # kept, oldest first


def _key(item: Item) -> tuple:
    if isinstance(item, EpisodeEntry):
        return (RANKED, -item.score.value, 1, item.episode.id)
    return (item.tier, -item.score.value, 0, item.memory.id)


def merge(
    selection: Selection,
    episodes: Sequence[EpisodeEntry],
    budget_tokens: int,
    limit: int,
    carried: Sequence[EpisodeEntry] = (),
) -> Merged:
    """Trim beliefs and episodes together; what loses is suppressed with the reason. `carried`: the
    scored quotes carried on a belief (`carried_quotes`): not items, but their relevance still orders
    the neighbouring turns an item quotes."""
    if not episodes and not any(entry.neighbours for entry in selection.chosen):
        return Merged(selection, [])
    ranked = sorted([*selection.chosen, *episodes], key=_key)
    trimmed, repeated = _fill(ranked, budget_tokens, limit, carried)
    kept = {id(item) for item in trimmed.kept}
    suppressed = list(selection.suppressed)
    for item in trimmed.over_budget:
        suppressed.append((_id(item), "over the token budget"))
    for item in trimmed.over_limit:
        suppressed.append((_id(item), "over the limit"))
    suppressed += [(entry.episode.id, f"quoted as context of {by}") for entry, by in repeated]
    beliefs = prompt_order([e for e in selection.chosen if id(e) in kept])
    quoted = sorted((e for e in episodes if id(e) in kept), key=lambda e: (e.episode.said_at, e.episode.turn_id))
    return Merged(replace(selection, chosen=beliefs, suppressed=suppressed, tokens_used=trimmed.tokens_used), quoted)


def _fill(
    ranked: Sequence[Item], budget_tokens: int, limit: int, carried: Sequence[EpisodeEntry] = ()
) -> tuple[Trimmed[Item], list[tuple[EpisodeEntry, str]]]:
    """`trim` in rank order, where each quote takes the neighbouring turns no item above it quotes.

    A hit already quoted as a neighbour of a better one is not repeated: (entry, quoting id) pairs.
    Deciding the context here, not before the budget, keeps a turn from vanishing when the hit
    that would have shown it is cut. A quote that does not fit with all its neighbours keeps those
    that fit, the more relevant first, before it is skipped."""
    filler: Filler[Item] = Filler(budget_tokens, limit)
    repeated: list[tuple[EpisodeEntry, str]] = []
    quoted: dict[str, str] = {}  # episode id -> the kept quote showing it
    scored = [*carried, *(item for item in ranked if isinstance(item, EpisodeEntry))]
    relevance = {entry.episode.id: entry.score.value for entry in scored}
    hits = {item.episode.id: item for item in ranked if isinstance(item, EpisodeEntry)}
    offered: set[str] = set()

    def offer(item: Item) -> None:
        offered.add(_id(item))
        if _offer_quote(filler, item, [m for m in item.neighbours if m.id not in quoted], relevance):
            shown = item.turns() if isinstance(item, EpisodeEntry) else [*item.evidence, *item.context]
            for turn in shown:
                quoted.setdefault(turn.id, _id(item))

    for item in ranked:
        if _id(item) in offered:  # offered already in the place of a short reply beside it
            continue
        if isinstance(item, EpisodeEntry) and item.episode.id in quoted:
            repeated.append((item, quoted[item.episode.id]))
            continue
        lead = saying_more(item, hits, quoted.keys() | offered) if isinstance(item, EpisodeEntry) else None
        if lead is not None:
            offer(lead)
            if item.episode.id in quoted:
                repeated.append((item, quoted[item.episode.id]))
                continue
        offer(item)
    return filler.trimmed(), repeated


def saying_more(
    reply: EpisodeEntry, hits: Mapping[str, EpisodeEntry], taken: Collection[str]
) -> EpisodeEntry | None:
    """The hit beside a short reply, said by the same speaker, that says more than twice its content
    words ("I'm buzzing." after "Did 53:40 at the race, so the new target is sub-50."), else None.

    A reply's vector is made with the turn before it (`reading.episode_text`), so a reply that says
    little ranks on what was said around it; the turn that says it is then the item, and the reply
    its context (it takes the reply among its neighbours), so the answer's item carries the words."""
    own = len(terms_of(reply.episode.text)[0])
    best: tuple[int, EpisodeEntry] | None = None
    for turn in reply.neighbours:
        other = hits.get(turn.id)
        if other is None or turn.id in taken or (turn.role, turn.speaker) != (reply.episode.role, reply.episode.speaker):
            continue
        more = len(terms_of(turn.text)[0])
        if more > 2 * own and (best is None or more > best[0]):
            best = (more, other)
    if best is None:
        return None
    lead = best[1]
    if all(m.id != reply.episode.id for m in lead.neighbours):
        lead.neighbours = [*lead.neighbours, reply.episode]
    return lead


def _offer_quote(
    filler: Filler[Item], entry: Item, fresh: Sequence[Episode], relevance: Mapping[str, float]
) -> bool:
    """Offer `entry` (a quote, or a belief carrying quotes) with those of its `fresh` neighbours that
    fit, taken in order of relevance (a neighbour that is itself a candidate by its score, the others
    after it in conversation order). `entry.context` keeps that order: the item cites its own turn(s),
    then them."""
    entry.context = []
    if filler.fits(entry.tokens()):
        for neighbour in sorted(fresh, key=lambda m: -relevance.get(m.id, 0.0)):
            entry.context.append(neighbour)
            if not filler.fits(entry.tokens()):
                entry.context.pop()
    return filler.offer(entry, entry.tokens())


def _id(item: Item) -> str:
    return item.episode.id if isinstance(item, EpisodeEntry) else item.memory.id


def episode_item(entry: EpisodeEntry, diagnostics: bool, now: datetime | None = None) -> RecalledMemory:
    """An episode as a recalled item: the quote, who said it and when, the turns it cites."""
    episode, score = entry.episode, entry.score
    sources = None
    if diagnostics:
        found = entry.signals
        sources = CandidateSources(
            dense_rank=found.dense_rank if found else None,
            dense_score=found.dense_score if found else None,
            keyword_rank=found.keyword_rank if found else None,
            keyword_score=None if found is None or found.keyword_score is None else round(found.keyword_score, 4),
            relevance=round(entry.relevance, 4),
        )
    return quote_of(
        episode,
        entry.currency,
        confidence=score.effective_confidence,
        effective_confidence=round(score.effective_confidence, 4),
        score=round(score.value, 4),
        recall_reason="; ".join(entry.reasons),
        citations=[episode.turn_id, *(turn.turn_id for turn in entry.context)],
        recalled_at=now,
        sources=sources,
        context=[
            EpisodeTurn(turn_id=t.turn_id, speaker=t.speaker, role=t.role, said_at=t.said_at, text=t.text)
            for t in entry.turns()
            if t.id != episode.id
        ],
    )


def quote_of(episode: Episode, labels: currency.Currency, **fields) -> RecalledMemory:
    """An episode as a recalled quote: its words, who said them and when, and its currency `labels`;
    `fields` the rest of the item (confidence, score, reason, citations, context)."""
    return RecalledMemory(
        id=episode.id,
        text=episode.text,
        type="episode",
        valid_from=episode.said_at,
        trust=episode.trust.value,
        source_role=episode.role,
        said_at=episode.said_at,
        speaker=episode.speaker,
        role=episode.role,
        session_id=episode.session_id,
        superseded=labels.superseded,
        possibly_superseded=labels.possibly_superseded,
        superseded_by=labels.superseded_by,
        superseded_at=labels.superseded_at,
        note=labels.note,
        **fields,
    )
