"""What the currency rules judge: a statement (an episode or a belief), the shape of an update it
may be, its typed values, and the link that says an earlier statement is stale. Pure data, read by
`reading.statement_reading` and judged by `beliefs.supersession` and its helpers
(`beliefs.another_name`, `beliefs.pairings`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Literal


class UpdateKind(StrEnum):
    CORRECTION = "correction"  # the earlier statement was wrong: "sorry, it's 120, not 90"
    CHANGE = "change"  # it was true and is no longer: "switched to", "instead", "now"
    CESSATION = "cessation"  # it has ended, maybe with nothing in its place: "anymore", "cancelled"


@dataclass(frozen=True)
class Shape:
    """What a statement's form says about earlier ones (`reading.statement_shape` reads it).

    `explicit`: a cue that says so in words ("I meant", "switched", "no longer"); implied: only a
    present-time contrast ("now", "these days", "my new ..."). `replaced` are the values it says are
    over ("not 14", "instead of pottery", "no longer treasurer"), normalised terms each; `stated` the
    values it puts in their place ("9 km").
    """

    kind: UpdateKind
    explicit: bool
    cues: tuple[str, ...] = ()
    replaced: tuple[tuple[str, ...], ...] = ()
    stated: tuple[tuple[str, ...], ...] = ()
    ends: bool = False  # a cessation cue: the old thing is over, whether or not a value replaces it
    starts: bool = False  # a new start ("just joined", "first week at"): it may replace something, or add to it
    renewed: tuple[str, ...] = ()  # head nouns said "new" ("my new landlord"): a new value of that noun
    withdraws: bool = False  # it only takes back what was said ("forget the boat"): its subject is what it names


@dataclass(frozen=True)
class Statement:
    """An episode or a belief as the currency rules see it: who said it, when, and about what."""

    id: str
    kind: Literal["episode", "memory"]
    said_at: datetime
    speaker: str | None
    terms: frozenset[str]  # normalised content words, names and numbers
    values: frozenset[str]  # the names and numbers among them
    vector: Sequence[float] | None = None
    shape: Shape | None = None
    memory_ids: tuple[str, ...] = field(default=())  # an episode's beliefs
    clauses: tuple[frozenset[str], ...] = ()  # the terms of each of its clauses
    slots: frozenset[tuple[str, tuple[str, ...]]] = frozenset()  # one-at-a-time slots it fills: ("employer", ("acme",))
    measures: frozenset[Measure] = frozenset()  # its typed values: a time, a weekday, a month, a number
    denies: bool = False  # it says, without an update's cue, that something is not so ("isn't happening")
    owners: frozenset[str] = frozenset()  # whose thing it speaks of: "my mum's birthday" -> {"mum"}
    names: frozenset[str] = frozenset()  # the values that name something: no number, weekday or month
    holder: str | None = None  # who its first clause is about: "self", a person ("parents"), None unsaid
    adds: bool = False  # it says it adds to what was said ("also", "too"): no replacement

    @property
    def may_update(self) -> bool:
        """Worth judging against earlier statements: it has an update's shape, or says a value of a
        kind two statements of one subject cannot both hold (a typed value, a one-at-a-time slot), or
        a name (another name of the same subject: `beliefs.another_name`)."""
        return (
            self.shape is not None or self.denies or bool(self.measures) or bool(self.slots)
            or bool(self.names)
        )  # fmt: skip


@dataclass(frozen=True)
class Measure:
    """A typed value a statement gives (`reading.subject` reads it): its `kind` (``time``, ``weekday``,
    ``month``, ``number``), the value normalised, and for a number the noun it counts ("6 people"),
    if said."""

    kind: str
    value: str
    unit: str | None = None


@dataclass(frozen=True)
class Link:
    """`older` is made stale by `newer` (`firm`) or may be (`possible`); `at` is when newer was said."""

    older_id: str
    newer_id: str
    firm: bool
    at: datetime
    reason: str
