"""The per-key token bucket: on its own with a fake clock, then over HTTP with real time."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from sidecar.app import create_app
from sidecar.errors import TooManyRequests
from sidecar.ratelimit import RateLimiter, TokenBucket
from streams.settings import Settings
from tests.sidecar.bodies import ACME, BOT, OTHER
from tests.sidecar.conftest import API_KEYS


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_grants_its_burst_then_refills_at_its_rate():
    bucket = TokenBucket(rate_per_s=2.0, burst=3, now=0.0)

    assert [bucket.take(0.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert bucket.take(0.0) == pytest.approx(0.5)
    assert bucket.take(0.25) == pytest.approx(0.25)
    assert bucket.take(0.5) == 0.0
    assert bucket.take(100.0) == 0.0  # refilled, but never beyond the burst
    assert [bucket.take(100.0) for _ in range(3)][-1] > 0


def test_a_clock_going_backwards_grants_nothing_extra():
    bucket = TokenBucket(rate_per_s=1.0, burst=1, now=10.0)
    bucket.take(10.0)

    assert bucket.take(5.0) > 0


@pytest.mark.parametrize(("rate", "burst"), [(0.0, 1), (-1.0, 1), (1.0, 0)])
def test_nonsense_limits_are_refused(rate, burst):
    with pytest.raises(ValueError):
        RateLimiter(rate, burst)


def test_the_limiter_keeps_one_bucket_per_key():
    clock = FakeClock()
    limiter = RateLimiter(rate_per_s=1.0, burst=1, clock=clock)
    limiter.check("a")
    limiter.check("b")

    with pytest.raises(TooManyRequests) as raised:
        limiter.check("a")
    assert raised.value.headers == {"Retry-After": "1"}
    clock.now += 1.0
    limiter.check("a")


def test_retry_after_rounds_up_to_whole_seconds():
    assert TooManyRequests(0.001).headers == {"Retry-After": "1"}
    assert TooManyRequests(2.2).headers == {"Retry-After": "3"}


@pytest.fixture
async def limited(store, publisher):
    """An app whose keys may make 2 requests at once and 4 a second after that."""
    settings = Settings(api_keys=API_KEYS, rate_limit_per_s=4.0, rate_limit_burst=2)
    app = create_app(settings, store, publisher)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sidecar") as http:
        yield http


async def test_over_the_limit_is_429_with_retry_after_and_recovers(limited):
    statuses = [(await limited.get("/v1/jobs/j-1", headers=ACME)).status_code for _ in range(2)]
    refused = await limited.get("/v1/jobs/j-1", headers=ACME)

    assert statuses == [404, 404]  # allowed through (the job just does not exist)
    assert refused.status_code == 429
    assert refused.headers["Retry-After"] == "1"
    assert refused.json()["error"]["code"] == "rate_limited"
    await asyncio.sleep(0.3)  # one token comes back every 0.25 s
    assert (await limited.get("/v1/jobs/j-1", headers=ACME)).status_code == 404


async def test_keys_are_limited_separately_and_probes_not_at_all(limited):
    for _ in range(3):
        await limited.get("/v1/jobs/j-1", headers=ACME)

    assert (await limited.get("/v1/jobs/j-1", headers=OTHER)).status_code == 404
    assert (await limited.get("/v1/jobs/j-1", headers=BOT)).status_code == 404
    for path in ("/healthz", "/readyz", "/metrics", "/healthz", "/metrics"):
        assert (await limited.get(path)).status_code == 200


async def test_unknown_keys_are_401_not_limited(limited):
    responses = [
        await limited.get("/v1/jobs/j-1", headers={"Authorization": "Bearer nope"}) for _ in range(5)
    ]

    assert {r.status_code for r in responses} == {401}


def test_settings_refuse_a_limit_that_cannot_work():
    with pytest.raises(ValueError):
        Settings(rate_limit_per_s=0)
    with pytest.raises(ValueError):
        Settings(rate_limit_burst=0)
