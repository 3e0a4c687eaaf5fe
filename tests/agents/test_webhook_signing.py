"""Webhook signatures and the retry schedule (pure)."""

import hashlib
import hmac

import pytest

from agents.webhook_signing import retry_delay_s, signature_header, verify

BODY = b'{"kind":"created","memory_id":"m-1"}'


def test_the_header_is_the_documented_hmac_of_timestamp_dot_body():
    header = signature_header("s3cret", 1_700_000_000, BODY)
    expected = hmac.new(b"s3cret", b"1700000000." + BODY, hashlib.sha256).hexdigest()
    assert header == f"t=1700000000,v1={expected}"


def test_verify_accepts_its_own_signature_within_the_tolerance():
    header = signature_header("s3cret", 1_000, BODY)
    assert verify("s3cret", header, BODY, now=1_100)


@pytest.mark.parametrize(
    ("secret", "body", "now", "header"),
    [
        ("other", BODY, 1_000, None),  # wrong secret
        ("s3cret", BODY + b" ", 1_000, None),  # body changed
        ("s3cret", BODY, 1_000 + 301, None),  # replayed too late
        ("s3cret", BODY, 1_000, "v1=abc"),  # no timestamp
        ("s3cret", BODY, 1_000, "t=x,v1=abc"),  # bad timestamp
        ("s3cret", BODY, 1_000, ""),
    ],
)
def test_verify_refuses_anything_else(secret, body, now, header):
    if header is None:
        header = signature_header("s3cret", 1_000, BODY)
    assert not verify(secret, header, body, now=now)


def test_retries_double_from_the_initial_delay_up_to_the_cap():
    assert [retry_delay_s(n, 1.0, 10.0) for n in range(1, 7)] == [1.0, 2.0, 4.0, 8.0, 10.0, 10.0]
    assert retry_delay_s(0, 0.5, 10.0) == 0.5
