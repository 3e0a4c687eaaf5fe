"""Records their user's erasure overtook: what never became a turn is not dead-lettered either.

A record that fails to decode or to be written still names its user when its ids could be read.
Dead-lettering it after that user was erased would keep the user's words on the DLQ topic, which
no erasure can reach. So, as for turns (`beliefs.erasure`), a rejected record accepted at or before
its user's latest erasure (by its record's time; a record with no time counts as before) is dropped.
"""

from __future__ import annotations

from collections.abc import Sequence

from beliefs.erasure import Erasures, split_overtaken
from reading.decode import Rejection


def named_users(rejections: Sequence[Rejection]) -> list[tuple[str, str]]:
    """The (tenant id, user id) pairs the rejected records name, each once."""
    return sorted({user for r in rejections if (user := _user_of(r)) is not None})


def split_rejections(
    rejections: Sequence[Rejection], erasures: Erasures
) -> tuple[list[Rejection], list[Rejection]]:
    """(kept, dropped): the records to dead-letter, and those their user's erasure overtook."""
    return split_overtaken(rejections, erasures, _user_of, lambda r: r.raw.recorded_at)


def _user_of(rejection: Rejection) -> tuple[str, str] | None:
    if rejection.tenant_id and rejection.user_id:
        return rejection.tenant_id, rejection.user_id
    return None
