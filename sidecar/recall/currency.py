"""What recall says of an item a later statement made stale, or may have (`beliefs.supersession`).

One place for the labels, so the belief and the quote read alike: a superseded quote is `superseded:
true` with a `note` (left out by default, `superseded_episodes: "label"` shows it); an item the
rules could not decide about is `possibly_superseded: true`, named beside the newer item
(`superseded_by`) and the date it was said (`superseded_at`), and never presented as current. Its
rank stays what its relevance gives: it may be the very evidence asked for (ranking the newer above it
cost a LoCoMo temporal question); the answer's dates and the label say which came first.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from beliefs.episodes import Episode
from beliefs.records import Memory

SUPERSEDED_NOTE = (
    "the belief this turn stated is no longer current (superseded, revoked, contested or expired): "
    "what was said then, not what is true now"
)
REPLACED_NOTE = "a later statement of the user replaced this one on {date}: what was said then, not what is true now"
POSSIBLY_NOTE = (
    "a later statement of the user (on {date}, {newer}) may have replaced this one: what was said then, "
    "maybe not what is true now"
)


@dataclass(frozen=True, slots=True)
class Currency:
    """The currency labels of one recalled item."""

    superseded: bool = False
    possibly_superseded: bool = False
    superseded_by: str | None = None
    superseded_at: datetime | None = None
    note: str | None = None


CURRENT = Currency()


def _date(at: datetime | None) -> str:
    return at.date().isoformat() if at is not None else "a later date"


def of_episode(episode: Episode, beliefs_gone: bool) -> Currency:
    """A quote's labels: replaced by a later statement, its beliefs all gone, or possibly replaced."""
    if episode.superseded_by is not None:
        note = REPLACED_NOTE.format(date=_date(episode.superseded_at))
        return Currency(True, False, episode.superseded_by, episode.superseded_at, note)
    if beliefs_gone:
        return Currency(True, note=SUPERSEDED_NOTE)
    if episode.possibly_superseded_by is not None:
        return _possibly(episode.possibly_superseded_by, episode.superseded_at)
    return CURRENT


def of_memory(memory: Memory) -> Currency:
    """A current belief's labels: possibly replaced by a later statement, or none."""
    if memory.possibly_superseded_by is not None:
        return _possibly(memory.possibly_superseded_by, memory.possibly_superseded_at)
    return CURRENT


def labels(found: Currency) -> dict:
    """The response fields of a belief's labels (none for a current one)."""
    if found is CURRENT:
        return {}
    return {
        "possibly_superseded": found.possibly_superseded,
        "superseded_by": found.superseded_by,
        "superseded_at": found.superseded_at,
        "note": found.note,
    }


def _possibly(newer: str, at: datetime | None) -> Currency:
    return Currency(False, True, newer, at, POSSIBLY_NOTE.format(date=_date(at), newer=newer))
