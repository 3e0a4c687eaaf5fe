"""Erasure against turns in flight: a turn accepted before its user was erased is never processed.

A turn can sit on the turns topic (or in the SQL intake) while its user is erased. Processing it
afterwards would bring the erased user back. So every turn carries when it was accepted, and the
store's write refuses a turn whose user's latest erasure is not older than that moment. A turn
accepted after the erasure (the user came back) is processed as any other. Recall's audit records
follow the same rule (`split_audits`): none is written that would name an erased user again.

When it was accepted is the earliest of what is known: the `accepted_at` the sidecar stamps on
the turn (kept when the intake publishes it again), and the broker's record timestamp. A stamp can
only make a turn older, never younger than its record. A turn with neither is taken as accepted
before any erasure: a turn that cannot show it came after is not kept for an erased user.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import TypeVar

from beliefs.records import RecallAudit, as_utc
from beliefs.write_plan import TurnOutcome

T = TypeVar("T")

#: (tenant id, user id) → when that user was last erased.
Erasures = Mapping[tuple[str, str], datetime]


def acceptance(stamped: datetime | None, recorded: datetime | None) -> datetime | None:
    """When a turn was accepted: the earliest known moment, None when nothing says."""
    known = [as_utc(moment) for moment in (stamped, recorded) if moment is not None]
    return min(known) if known else None


def erased_after(accepted_at: datetime | None, erased_at: datetime | None) -> bool:
    """True when the user was erased at or after the turn's acceptance: the turn must not be kept."""
    if erased_at is None:
        return False
    if accepted_at is None:
        return True
    return as_utc(accepted_at) <= as_utc(erased_at)


def split_overtaken(
    items: Sequence[T], erasures: Erasures, user_of: Callable[[T], tuple[str, str] | None],
    accepted_of: Callable[[T], datetime | None],
) -> tuple[list[T], list[T]]:
    """(kept, dropped): the items whose user (None: unknown) was not erased at or after their
    acceptance, and those whose user's erasure overtook them."""
    kept: list[T] = []
    dropped: list[T] = []
    for item in items:
        user = user_of(item)
        erased_at = erasures.get(user) if user is not None else None
        (dropped if erased_after(accepted_of(item), erased_at) else kept).append(item)
    return kept, dropped


def split_erased(outcomes: Sequence[TurnOutcome], erasures: Erasures) -> tuple[list[TurnOutcome], list[TurnOutcome]]:
    """(kept, dropped): the outcomes to write, and those of turns their user's erasure overtook."""
    return split_overtaken(
        outcomes, erasures, lambda o: (o.turn.tenant_id, o.turn.user_id), lambda o: o.turn.accepted_at
    )


def split_audits(records: Sequence[RecallAudit], erasures: Erasures) -> tuple[list[RecallAudit], list[RecallAudit]]:
    """(kept, dropped): the recall audit records to write, and those that would outlive their user.

    A record is dropped when its user was erased at or after the recall (the erasure overtook the
    record while it was buffered), or before it when the recall returned nothing: an erased user's
    empty recall discloses nothing, and its record would be the one row naming them in clear. A
    recall that returned something after the erasure read data the user brought back, and is kept.
    """
    kept: list[RecallAudit] = []
    dropped: list[RecallAudit] = []
    for record in records:
        erased_at = erasures.get((record.tenant_id, record.user_id))
        returned = bool(record.memory_ids or record.episode_ids)
        outlived = erased_at is not None and (erased_after(record.at, erased_at) or not returned)
        (dropped if outlived else kept).append(record)
    return kept, dropped
