"""Episodes in recall: the turns as said, scored beside the beliefs and returned as dated quotes (pure).

An episode is ranked with the beliefs' blend (`scoring.blend`): relevance from the fused dense and
keyword similarity, plus a bonus when the query names its speaker (`people`) or dates it fits
(`temporal`); confidence from its trust; importance a fixed default (`episode_importance`: the
beliefs a turn produced compete with their own importance, and counting it again for their turn
crowds other turns out; it still lifts that turn over the similarity floor); recency from when it
was said, on the beliefs' curve (`beliefs.age.recency_curve`). It never overrides a belief: an episode whose
beliefs are all no longer current (superseded, revoked, contested, expired) is suppressed, or
labelled `superseded` and demoted when the request asks so. `caution` (an assistant's words) and
`untrusted` episodes are returned only on `include_untrusted_evidence`. The beliefs' similarity
floor applies too (importance never lifts a turn over it), with the reason in diagnostics.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from beliefs.age import SECONDS_PER_DAY, recency_curve
from beliefs.confidence import QUOTE_CONFIDENCE
from beliefs.episodes import Episode
from beliefs.records import Memory, Trust
from reading.period import lapsed
from sidecar.recall import currency
from sidecar.recall.budget import estimate_tokens
from sidecar.recall.config import RecallConfig
from sidecar.recall.floor import similarity_floor
from sidecar.recall.fusion import Signals
from sidecar.recall.people import mentions
from sidecar.recall.policy import ItemGates, framing_cap
from sidecar.recall.query_dates import Window
from sidecar.recall.scoring import Score, blend


@dataclass(slots=True)
class EpisodeEntry:
    episode: Episode
    reasons: list[str]
    relevance: float
    score: Score
    signals: Signals | None = None
    context: list[Episode] = field(default_factory=list)  # neighbouring turns included, the more relevant first
    superseded: bool = False
    currency: currency.Currency = currency.CURRENT  # the labels the quote carries
    neighbours: list[Episode] = field(default_factory=list)  # the turns around it trust allows (candidates)

    def turns(self) -> list[Episode]:
        """The hit and its included neighbours in conversation order."""
        return sorted([self.episode, *self.context], key=lambda e: (e.said_at, e.turn_id))

    def tokens(self) -> int:
        """Of the hit and its included neighbours (a sum: their order does not matter)."""
        return estimate_tokens(self.episode.text) + sum(estimate_tokens(e.text) for e in self.context)


@dataclass(frozen=True)
class EpisodeVerdicts:
    entries: list[EpisodeEntry]
    suppressed: list[tuple[str, str]]  # (id, why)
    labelled: list[tuple[str, str]]  # (id, why): superseded episodes, labelled or suppressed
    #: (older id, newer id): a suppressed superseded quote the query found relevant (over the floor), and
    #: the statement that replaced it: the answer shows the newer one in its place (`newer_first`)
    replaced: list[tuple[str, str]] = field(default_factory=list)


def trust_allowed(episode: Episode, include_untrusted: bool) -> str | None:
    """Why the episode is not shown by default, or None."""
    if episode.trust is Trust.TRUSTED or include_untrusted:
        return None
    if episode.trust is Trust.CAUTION:
        return f"{episode.role.value} turn (caution): shown only with include_untrusted_evidence"
    return "untrusted evidence: shown only with include_untrusted_evidence"


def episode_recency(episode: Episode, now: datetime, config: RecallConfig) -> float:
    days = (now - episode.said_at).total_seconds() / SECONDS_PER_DAY
    return recency_curve(days, config.episode_half_life_days * config.recency_scale)


def score_episode(
    episode: Episode,
    relevance: float,
    importance: float,
    now: datetime,
    config: RecallConfig,
    confidence_cap: float = 1.0,
) -> Score:
    parts = (
        min(max(relevance, 0.0), 1.0),
        min(QUOTE_CONFIDENCE[episode.trust], confidence_cap),
        importance,
        episode_recency(episode, now, config),
    )
    return blend(parts, config)


def boosts(
    episode: Episode, named: Collection[str], window: Window | None, config: RecallConfig
) -> tuple[float, list[str]]:
    """Relevance added for the named speaker's own turns and for fitting the query's dates. A turn
    that only names them gets a reason, no bonus: in a conversation the other speaker names them in
    every greeting, so it says little about whose words answer the question."""
    bonus, reasons = 0.0, []
    if named and episode.speaker in named:
        bonus += config.person_weight
        reasons.append(f"about {episode.speaker}")
    elif named and mentions(episode.text, named):
        reasons.append(f"mentions {', '.join(sorted(named))}")
    if window is not None and window.holds(episode.said_at):
        bonus += config.time_weight
        reasons.append(f"said within '{window.said}'")
    return bonus, reasons


def judge_episodes(
    episodes: Sequence[Episode],
    signals: Mapping[str, Signals],
    current_beliefs: Mapping[str, Memory],
    now: datetime,
    config: RecallConfig,
    *,
    named: Collection[str] = (),
    window: Window | None = None,
    include_untrusted: bool = False,
    suppress_superseded: bool = False,
    gates: ItemGates | None = None,
    impersonal: bool = False,
) -> EpisodeVerdicts:
    """Score every hydrated episode; drop what trust forbids; label (or drop) superseded ones.

    `current_beliefs`: the episodes' linked memories that are still current, by id. `gates`: the
    request's policy for every item (`policy.ItemGates`); a quote whose frame caps its confidence
    under the floor, or that a belief's gate withholds, is suppressed with the reason. `impersonal`:
    the query speaks of no one of the user's (`reference.speaks_of_user`): the higher floor applies.
    """
    gates = gates or ItemGates(confidence_floor=config.confidence_floor)
    entries: list[EpisodeEntry] = []
    suppressed: list[tuple[str, str]] = []
    labelled: list[tuple[str, str]] = []
    replaced: list[tuple[str, str]] = []
    for episode in episodes:
        why = trust_allowed(episode, include_untrusted)
        if why is not None:
            suppressed.append((episode.id, why))
            continue
        linked = [current_beliefs[i] for i in episode.memory_ids if i in current_beliefs]
        cap, framing = framing_cap(episode.text)
        if framing is not None and min(QUOTE_CONFIDENCE[episode.trust], cap) < gates.confidence_floor:
            suppressed.append((episode.id, f"{framing} (a quote is trusted no more than its claim: {cap} < the floor)"))
            continue
        ended = lapsed(episode.text, episode.said_at, now)
        if ended is not None:
            suppressed.append((episode.id, f"expired: said for a period that ended {ended.date().isoformat()}"))
            continue
        withheld = gates.quote_withheld(episode.text, linked, episode.id in gates.asked)
        if withheld is not None:
            suppressed.append((episode.id, withheld))
            continue
        labels = currency.of_episode(episode, beliefs_gone(episode, current_beliefs))
        if labels is currency.CURRENT:  # a belief it stated may have been replaced: so may the quote
            labels = next((found for m in linked if (found := currency.of_memory(m)) is not currency.CURRENT), labels)
        stale = labels.superseded
        found = signals.get(episode.id)
        floor = None if found is None else similarity_floor(found, config, impersonal=impersonal)  # importance never lifts a turn over it
        if stale and suppress_superseded:
            suppressed.append((episode.id, f"suppressed: {labels.note}"))
            labelled.append((episode.id, f"suppressed: {labels.note}"))
            by = labels.superseded_by or episode.possibly_superseded_by  # its beliefs gone, a later turn linked
            if by is not None and found is not None and (floor is None or floor.passes):
                replaced.append((episode.id, by))
            continue
        if floor is not None and not floor.passes:
            suppressed.append((episode.id, floor.why or ""))
            continue
        bonus, reasons = boosts(episode, named, window, config)
        relevance = min(1.0, (found.relevance if found else 0.0) + bonus)
        score = score_episode(episode, relevance, config.episode_importance, now, config, cap)
        if stale:
            score = score._replace(value=score.value * config.superseded_episode_factor)
        if stale or labels.possibly_superseded:
            how = "superseded" if stale else "possibly superseded"
            labelled.append((episode.id, f"labelled {how}: {labels.note}"))
        said = f"said by {episode.speaker or episode.role.value} on {episode.said_at.date().isoformat()}"
        matched = f"matched query ({found.sources})" if found else "context"
        entries.append(
            EpisodeEntry(episode, [matched, said, *reasons], relevance, score, found, superseded=stale, currency=labels)
        )
    return EpisodeVerdicts(entries, suppressed, labelled, replaced)


def offer_context(
    entries: Sequence[EpisodeEntry],
    neighbours: Mapping[str, Sequence[Episode]],
    current_beliefs: Mapping[str, Memory],
    include_untrusted: bool,
) -> None:
    """Give each entry the neighbouring turns it may quote: what trust allows, never a superseded turn
    (that one is only ever shown labelled, as its own item); a possibly superseded one may be quoted, dated. Which of them it quotes is decided with
    the budget (`evidence.merge`), in rank order, so no turn is quoted twice and none is lost."""
    for entry in entries:
        entry.neighbours = [
            m
            for m in neighbours.get(entry.episode.id, ())
            if trust_allowed(m, include_untrusted) is None
            and not currency.of_episode(m, beliefs_gone(m, current_beliefs)).superseded
        ]


def beliefs_gone(episode: Episode, current_beliefs: Mapping[str, Memory]) -> bool:
    """It stated beliefs and none of them is current any more."""
    return bool(episode.memory_ids) and not any(i in current_beliefs for i in episode.memory_ids)

