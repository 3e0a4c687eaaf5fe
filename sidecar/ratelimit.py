"""A token bucket per API key: `rate_per_s` requests per second on average, `burst` at once.

Buckets are keyed by the API key after it authenticated, so their number is bounded by the
configured keys: a flood of made-up keys gets 401s and creates no state. Unauthenticated routes
(`/healthz`, `/readyz`, `/metrics`) never reach the limiter. The bucket lives in this process: with
several sidecar replicas each enforces its own share.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from sidecar.errors import TooManyRequests

Clock = Callable[[], float]


class TokenBucket:
    """Refills continuously at `rate_per_s` up to `burst`; a request takes one token."""

    def __init__(self, rate_per_s: float, burst: int, now: float) -> None:
        if rate_per_s <= 0 or burst < 1:
            raise ValueError(f"rate_per_s must be > 0 and burst >= 1, got {rate_per_s} and {burst}")
        self.rate_per_s = rate_per_s
        self.burst = burst
        self._tokens = float(burst)
        self._updated = now

    def take(self, now: float) -> float:
        """0.0 when a token was taken; otherwise the seconds until one will be there."""
        elapsed = max(0.0, now - self._updated)
        self._tokens = min(float(self.burst), self._tokens + elapsed * self.rate_per_s)
        self._updated = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return 0.0
        return (1.0 - self._tokens) / self.rate_per_s


class RateLimiter:
    """One bucket per key; `check` raises `TooManyRequests` (429 with Retry-After) when it is empty."""

    def __init__(self, rate_per_s: float, burst: int, clock: Clock = time.monotonic) -> None:
        TokenBucket(rate_per_s, burst, 0.0)  # validate once, at start-up
        self.rate_per_s = rate_per_s
        self.burst = burst
        self._clock = clock
        self._buckets: dict[str, TokenBucket] = {}

    def check(self, key: str) -> None:
        now = self._clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket(self.rate_per_s, self.burst, now)
        wait_s = bucket.take(now)
        if wait_s > 0:
            raise TooManyRequests(wait_s)
