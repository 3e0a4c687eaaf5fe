"""Bad input is named, never fatal: every malformed value becomes a Rejection with a reason."""

import json
from datetime import UTC, datetime

import pytest

from beliefs.records import Role, Turn
from reading.decode import RawTurn, Rejection, decode_turn

GOOD = {"turn_id": "t-1", "tenant_id": "acme", "user_id": "u-1", "role": "user", "text": "I always use dark mode."}


def raw(document: object) -> RawTurn:
    return RawTurn(json.dumps(document).encode(), b"acme:u-1", "beliefstream.turns", 0, 7)


def test_a_valid_turn_decodes_with_defaults():
    turn = decode_turn(raw(GOOD), 1024)
    assert isinstance(turn, Turn)
    assert turn.role is Role.USER and turn.agent_id is None and turn.metadata == {}
    assert turn.ts.tzinfo is not None  # ts defaults to arrival time, in UTC


def test_naive_timestamps_are_taken_as_utc():
    turn = decode_turn(raw({**GOOD, "ts": "2026-11-21T10:00:00"}), 1024)
    assert turn.ts.isoformat() == "2026-11-21T10:00:00+00:00"


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (b"\xff\xfe not utf-8", "invalid_utf8"),
        (b"{not json", "invalid_json"),
        (b"[1, 2]", "not_an_object"),
        (json.dumps({k: v for k, v in GOOD.items() if k != "user_id"}).encode(), "missing_field"),
        (json.dumps({**GOOD, "role": "narrator"}).encode(), "unknown_role"),
        (json.dumps({**GOOD, "ts": "yesterday-ish"}).encode(), "invalid_field"),
        (json.dumps({**GOOD, "text": 42}).encode(), "invalid_field"),
        (json.dumps({**GOOD, "text": "x" * 2000}).encode(), "text_too_large"),
        (None, "empty_value"),
    ],
)
def test_malformed_values_are_rejected_with_a_reason(value, reason):
    decoded = decode_turn(RawTurn(value, b"k", "beliefstream.turns", 3, 99), 1024)
    assert isinstance(decoded, Rejection)
    assert decoded.reason == reason
    assert decoded.detail
    assert decoded.raw.offset == 99  # where it came from travels with it to the DLQ


def test_missing_fields_are_all_named():
    decoded = decode_turn(raw({"turn_id": "t-1", "role": "user"}), 1024)
    assert decoded.reason == "missing_field"
    for field in ("tenant_id", "user_id", "text"):
        assert field in decoded.detail


def test_ids_are_kept_when_readable_so_the_job_can_fail_visibly():
    decoded = decode_turn(raw({**GOOD, "role": "narrator"}), 1024)
    assert (decoded.tenant_id, decoded.user_id, decoded.turn_id) == ("acme", "u-1", "t-1")


def test_text_limit_counts_utf8_bytes_not_characters():
    text = "é" * 600  # 1200 bytes
    assert isinstance(decode_turn(raw({**GOOD, "text": text}), 1024), Rejection)
    assert isinstance(decode_turn(raw({**GOOD, "text": text}), 1200), Turn)


RECORDED = 1_795_000_000.0  # the broker record's timestamp, seconds


def stamped_raw(document: object, timestamp: float | None) -> RawTurn:
    return RawTurn(json.dumps(document).encode(), b"acme:u-1", "beliefstream.turns", 0, 7, None, timestamp)


def test_a_turn_is_accepted_when_its_record_was_written():
    turn = decode_turn(stamped_raw(GOOD, RECORDED), 1024)
    assert turn.accepted_at == datetime.fromtimestamp(RECORDED, UTC)
    for missing in (None, -1.0):  # a broker without timestamps: acceptance unknown
        assert decode_turn(stamped_raw(GOOD, missing), 1024).accepted_at is None


def test_the_sidecars_stamp_keeps_a_republished_turn_as_old_as_it_was_accepted():
    accepted = datetime.fromtimestamp(RECORDED - 3600, UTC)
    republished = decode_turn(stamped_raw({**GOOD, "accepted_at": accepted.isoformat()}, RECORDED), 1024)
    assert republished.accepted_at == accepted
    claimed_later = datetime.fromtimestamp(RECORDED + 3600, UTC)  # a stamp never makes a record younger
    turn = decode_turn(stamped_raw({**GOOD, "accepted_at": claimed_later.isoformat()}, RECORDED), 1024)
    assert turn.accepted_at == datetime.fromtimestamp(RECORDED, UTC)
