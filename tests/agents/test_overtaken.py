"""Rejected records against their user's erasure: dropped when accepted at or before it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from agents.overtaken import named_users, split_rejections
from reading.decode import RawTurn, Rejection

ERASED = datetime(2026, 5, 1, 12, tzinfo=UTC)


def rejection(user: str | None, at: datetime | None, tenant: str | None = "acme") -> Rejection:
    raw = RawTurn(b"{}", timestamp=at.timestamp() if at is not None else None)
    return Rejection(raw, "invalid_role", "role 'narrator' is not one of user, assistant", tenant, user, "t")


def test_only_records_naming_an_erased_user_accepted_no_later_than_the_erasure_are_dropped() -> None:
    at_erasure = rejection("gone", ERASED)
    earlier = rejection("gone", ERASED - timedelta(seconds=1))
    untimed = rejection("gone", None)
    later = rejection("gone", ERASED + timedelta(seconds=1))
    other = rejection("stays", ERASED - timedelta(days=1))
    anonymous = rejection(None, None, tenant=None)

    kept, dropped = split_rejections(
        [at_erasure, earlier, untimed, later, other, anonymous], {("acme", "gone"): ERASED}
    )

    assert dropped == [at_erasure, earlier, untimed]
    assert kept == [later, other, anonymous]


def test_named_users_are_the_readable_pairs_each_once() -> None:
    records = [rejection("b", None), rejection("a", None), rejection("b", ERASED), rejection(None, None)]
    assert named_users(records) == [("acme", "a"), ("acme", "b")]
