"""The webhook dispatcher: memory events POSTed, signed, to the subscribed URLs, retried with backoff.

A thin loop over `sinks.sql.webhooks`: every `poll_s`, claim the deliveries that are due, POST
each body (the event's JSON, as on the events topic) with its signature
(`agents.webhook_signing`), and record the outcome. A 2xx is delivered; any other answer or no
answer is retried after a doubling delay, until `max_attempts`, then marked failed (kept, with its
last error). Delivery is at least once: a receiver dedupes on the `Beliefstream-Delivery` header.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from datetime import datetime, timedelta

import httpx

from agents.webhook_signing import DELIVERY_HEADER, SIGNATURE_HEADER, retry_delay_s, signature_header
from beliefs.records import utcnow
from sinks.contracts import Delivery, WebhookQueue
from sinks.errors import SinkError

log = logging.getLogger(__name__)


class WebhookDispatcher:
    def __init__(
        self,
        deliveries: WebhookQueue,
        secret: str,
        http: httpx.AsyncClient,
        *,
        max_attempts: int = 10,
        retry_initial_s: float = 1.0,
        retry_max_s: float = 600.0,
        timeout_s: float = 10.0,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self._deliveries = deliveries
        self._secret = secret
        self._http = http
        self.max_attempts = max_attempts
        self.retry_initial_s = retry_initial_s
        self.retry_max_s = retry_max_s
        self.timeout_s = timeout_s
        self._clock = clock

    async def run_once(self) -> int:
        """Send every delivery due now; how many were attempted."""
        due = await self._deliveries.claim_due(self._clock(), lease_s=self.timeout_s * 3)
        await asyncio.gather(*(self._send(delivery) for delivery in due))
        return len(due)

    async def run(self, stop: asyncio.Event, poll_s: float = 1.0) -> None:
        """Dispatch until `stop` is set; a store outage is logged and retried on the next poll."""
        while not stop.is_set():
            try:
                await self.run_once()
            except SinkError as exc:
                log.warning("webhooks: %s; retrying", exc)
            try:
                await asyncio.wait_for(stop.wait(), timeout=poll_s)
            except TimeoutError:
                pass

    async def _send(self, delivery: Delivery) -> None:
        timestamp = int(time.time())
        headers = {
            "content-type": "application/json",
            SIGNATURE_HEADER: signature_header(self._secret, timestamp, delivery.body),
            DELIVERY_HEADER: str(delivery.id),
        }
        try:
            answer = await self._http.post(delivery.url, content=delivery.body, headers=headers, timeout=self.timeout_s)
            error = None if answer.is_success else f"HTTP {answer.status_code}"
        except httpx.HTTPError as exc:
            error = f"{type(exc).__name__}: {exc}"
        now = self._clock()
        if error is None:
            await self._deliveries.delivered(delivery.id, now)
            return
        attempts = delivery.attempts + 1
        if attempts >= self.max_attempts:
            log.warning("webhook delivery %d to %s failed for good after %d attempts: %s",
                        delivery.id, delivery.url, attempts, error)
            await self._deliveries.failed_attempt(delivery.id, error, None)
            return
        delay = retry_delay_s(attempts, self.retry_initial_s, self.retry_max_s)
        await self._deliveries.failed_attempt(delivery.id, error, now + timedelta(seconds=delay))
