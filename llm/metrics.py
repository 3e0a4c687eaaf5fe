"""The LLM calls' Prometheus metrics: Messages API requests by purpose (extraction, consolidation,
reflect), their tokens from each answer's `usage`, failures by kind, and how long each took.

They live in prometheus-client's process registry beside the worker's (`agents.metrics`), so the
sidecar's `/metrics` shows them in `beliefstream dev`. Labels are bounded sets, never ids or text.
"""

from __future__ import annotations

import functools
from typing import Any

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram

#: Single calls (an LLM answer, a sink write): milliseconds to tens of seconds.
CALL_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class LlmMetrics:
    """Messages API calls by purpose (extraction, consolidation, reflect): calls, tokens, failures."""

    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        self.calls = Counter("beliefstream_llm_calls", "LLM requests answered, by purpose", ("purpose",), registry=registry)
        self.tokens = Counter(
            "beliefstream_llm_tokens",
            "LLM tokens by purpose and kind (input, output, cache_read, cache_write)",
            ("purpose", "kind"),
            registry=registry,
        )
        self.failures = Counter(
            "beliefstream_llm_failures",
            "LLM requests that failed after the SDK's retries, or answered unusably, by purpose and kind",
            ("purpose", "kind"),
            registry=registry,
        )
        self.seconds = Histogram(
            "beliefstream_llm_request_duration_seconds", "One LLM request, SDK retries included, by purpose",
            ("purpose",), buckets=CALL_BUCKETS, registry=registry,
        )  # fmt: skip


#: `usage` fields of a Messages API response, as the `kind` label of `beliefstream_llm_tokens_total`.
USAGE_KINDS = {
    "input_tokens": "input",
    "output_tokens": "output",
    "cache_read_input_tokens": "cache_read",
    "cache_creation_input_tokens": "cache_write",
}


@functools.cache
def llm_metrics() -> LlmMetrics:
    """The process's LLM metrics (collectors register once per registry)."""
    return LlmMetrics()


def record_llm_usage(purpose: str, usage: Any, seconds: float | None = None) -> None:
    """Count one answered Messages API request: its tokens from the response's `usage`."""
    llm = llm_metrics()
    llm.calls.labels(purpose).inc()
    if seconds is not None:
        llm.seconds.labels(purpose).observe(seconds)
    for field, kind in USAGE_KINDS.items():
        tokens = getattr(usage, field, None) if usage is not None else None
        if isinstance(tokens, int) and tokens > 0:
            llm.tokens.labels(purpose, kind).inc(tokens)


def record_llm_failure(purpose: str, kind: str) -> None:
    """Count one failed request: `kind` is status_429, status_5xx, status_4xx, timeout, connection,
    api_error (transport), or malformed (an answer that is not the prompt's schema)."""
    llm_metrics().failures.labels(purpose, kind).inc()


def llm_failure_kind(exc: BaseException) -> str:
    """The `kind` label of an SDK exception (bounded: never the message)."""
    import anthropic

    if isinstance(exc, anthropic.APIStatusError):
        code = exc.status_code
        return "status_429" if code == 429 else "status_5xx" if code >= 500 else "status_4xx"
    if isinstance(exc, anthropic.APITimeoutError):
        return "timeout"
    if isinstance(exc, anthropic.APIConnectionError):
        return "connection"
    return "api_error"
