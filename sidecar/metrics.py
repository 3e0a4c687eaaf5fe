"""Request metrics in Prometheus form: counts and latency by method, route template and status.

Each app gets its own registry, so several apps in one process (tests, `beliefstream dev`) never
collide; `/metrics` also renders the process registry, where the worker's metrics
(`agents.metrics`) and the process collectors live, so `beliefstream dev` shows them all. The route label is the matched template (`/v1/memories/{memory_id}`), never the raw path,
so ids do not explode the label set; a request that matched no route is labelled `unmatched`.
"""

from __future__ import annotations

import time

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.exposition import generate_latest
from starlette.types import ASGIApp, Message, Receive, Scope, Send

UNMATCHED = "unmatched"

#: Latency buckets in seconds: the sidecar answers in milliseconds; recall may take a little longer.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class RequestMetrics:
    """The sidecar's collectors, in a registry of their own."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "beliefstream_http_requests",
            "HTTP requests answered, by method, route template and status",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "beliefstream_http_request_duration_seconds",
            "Time from request to the end of the response, by method and route template",
            ["method", "route"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.in_flight = Gauge(
            "beliefstream_http_requests_in_flight", "HTTP requests being served", registry=self.registry
        )

    def render(self) -> bytes:
        """The Prometheus text exposition of this app's collectors and of the process registry."""
        return generate_latest(self.registry) + generate_latest(REGISTRY)


def route_label(scope: Scope) -> str:
    route = scope.get("route")
    return getattr(route, "path", None) or UNMATCHED


class MetricsMiddleware:
    """Times every HTTP request and counts it by the status actually sent (500 if none was)."""

    def __init__(self, app: ASGIApp, metrics: RequestMetrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 500
        started = time.perf_counter()

        async def send_recording(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        self.metrics.in_flight.inc()
        try:
            await self.app(scope, receive, send_recording)
        finally:
            self.metrics.in_flight.dec()
            method, route = scope.get("method", ""), route_label(scope)
            self.metrics.latency.labels(method, route).observe(time.perf_counter() - started)
            self.metrics.requests.labels(method, route, str(status)).inc()
