"""Signatures of webhook deliveries, and the retry schedule: pure functions.

    Beliefstream-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>

The timestamp is signed with the body, so a receiver that checks it against its clock (within
`tolerance_s`) refuses a replayed delivery; `hmac.compare_digest` keeps the check constant-time.
"""

from __future__ import annotations

import hashlib
import hmac

SIGNATURE_HEADER = "Beliefstream-Signature"
DELIVERY_HEADER = "Beliefstream-Delivery"
DEFAULT_TOLERANCE_S = 300.0


def signature(secret: str, timestamp: int, body: bytes) -> str:
    """The hex HMAC-SHA256 of `<timestamp>.<body>` under `secret`."""
    return hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()


def signature_header(secret: str, timestamp: int, body: bytes) -> str:
    return f"t={timestamp},v1={signature(secret, timestamp, body)}"


def verify(secret: str, header: str, body: bytes, now: float, tolerance_s: float = DEFAULT_TOLERANCE_S) -> bool:
    """Is `header` a signature of `body` under `secret`, made within `tolerance_s` of `now`?"""
    parts = dict(item.split("=", 1) for item in header.split(",") if "=" in item)
    try:
        timestamp = int(parts["t"])
    except (KeyError, ValueError):
        return False
    if abs(now - timestamp) > tolerance_s:
        return False
    return hmac.compare_digest(parts.get("v1", ""), signature(secret, timestamp, body))


def retry_delay_s(attempts: int, initial_s: float, max_s: float) -> float:
    """Seconds before the next attempt after `attempts` failed ones: doubling from `initial_s`, capped."""
    return min(max_s, initial_s * 2 ** max(0, attempts - 1))
