"""The erasure rule over turns in flight: accepted before the latest erasure → refused; after → kept."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from beliefs.erasure import acceptance, erased_after, split_audits, split_erased
from beliefs.records import JobState, RecallAudit, Role, Turn, job_id_for
from beliefs.write_plan import TurnOutcome

ERASED = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
SECOND = timedelta(seconds=1)


def outcome(user: str, accepted_at: datetime | None, tenant: str = "acme") -> TurnOutcome:
    turn = Turn(
        turn_id=f"{user}-{accepted_at}", tenant_id=tenant, user_id=user, role=Role.USER, text="I use vim.",
        accepted_at=accepted_at,
    )
    return TurnOutcome(turn, job_id_for(tenant, turn.turn_id), JobState.DONE)


@pytest.mark.parametrize(
    ("accepted_at", "erased_at", "refused"),
    [
        (ERASED - SECOND, ERASED, True),  # in the broker when the user was erased
        (ERASED, ERASED, True),  # the same instant: the erasure wins
        (ERASED + SECOND, ERASED, False),  # the user came back after the erasure
        (ERASED - SECOND, None, False),  # never erased
        (None, None, False),
        (None, ERASED, True),  # a turn that cannot show it came after is not kept for an erased user
    ],
)
def test_a_turn_is_refused_exactly_when_the_erasure_is_not_older(accepted_at, erased_at, refused) -> None:
    assert erased_after(accepted_at, erased_at) is refused


def test_a_naive_moment_is_utc_on_either_side() -> None:
    naive = ERASED.replace(tzinfo=None)
    assert erased_after(naive - SECOND, ERASED) and not erased_after(naive + SECOND, ERASED)
    assert erased_after(ERASED - SECOND, naive)


def test_acceptance_is_the_earliest_known_moment() -> None:
    stamped, recorded = ERASED - SECOND, ERASED + SECOND
    assert acceptance(stamped, recorded) == stamped  # re-published later: the stamp keeps it old
    assert acceptance(recorded, stamped) == stamped  # a stamp never makes a record younger
    assert acceptance(None, recorded) == recorded and acceptance(stamped, None) == stamped
    assert acceptance(None, None) is None


def test_split_keeps_order_and_only_refuses_the_erased_users_earlier_turns() -> None:
    before = outcome("gone", ERASED - SECOND)
    back = outcome("gone", ERASED + SECOND)
    other = outcome("stays", ERASED - SECOND)
    same_id_other_tenant = outcome("gone", ERASED - SECOND, tenant="globex")
    kept, dropped = split_erased([before, other, back, same_id_other_tenant], {("acme", "gone"): ERASED})
    assert kept == [other, back, same_id_other_tenant]
    assert dropped == [before]


def audit(user: str, at: datetime, memory_ids: tuple[str, ...] = (), episode_ids: tuple[str, ...] = ()) -> RecallAudit:
    return RecallAudit(
        id=f"{user}-{at}-{len(memory_ids)}-{len(episode_ids)}", tenant_id="acme", user_id=user, at=at,
        query_digest="0" * 64, memory_ids=list(memory_ids), episode_ids=list(episode_ids),
    )  # fmt: skip


@pytest.mark.parametrize(
    ("record", "kept"),
    [
        (audit("gone", ERASED - SECOND, ("m1",)), False),  # read before the erasure, flushed after
        (audit("gone", ERASED, ("m1",)), False),  # the same instant: the erasure wins
        (audit("gone", ERASED + SECOND), False),  # an empty recall of the erased user
        (audit("gone", ERASED + SECOND, ("m2",)), True),  # the user came back: their new data was read
        (audit("gone", ERASED + SECOND, (), ("e2",)), True),  # a quote of what they said since
        (audit("never", ERASED - SECOND), True),  # a user never erased: every recall is audited
    ],
)
def test_no_audit_record_outlives_its_users_erasure(record: RecallAudit, kept: bool) -> None:
    erasures = {("acme", "gone"): ERASED}

    written, dropped = split_audits([record], erasures)

    assert (written, dropped) == (([record], []) if kept else ([], [record]))
