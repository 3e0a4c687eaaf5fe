"""Recall's Prometheus metrics and span: latency, result size (items, tokens), suppressions by reason.

In the process registry (beside the worker's), so every `/metrics` page of the process shows them.
A suppression's `why` is free text (it may name an id or an attribute), so it is counted under a
bounded `reason` label (`suppression_reason`). The span carries the tenant and counts, never the
query or a memory's text.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram

from sidecar.recall.exclusions import REASONS, reason_of  # noqa: F401  (REASONS: the table, re-exported)
from streams.tracing import set_attributes, span

#: Recall answers in milliseconds; a cold model or a slow database takes longer.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
ITEM_BUCKETS = (0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 100)
TOKEN_BUCKETS = (0, 50, 100, 200, 400, 800, 1600, 3200, 6400)

#: A suppression's `why` → its bounded reason label: one table for metrics and diagnostics.
suppression_reason = reason_of


class RecallMetrics:
    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        self.seconds = Histogram(
            "beliefstream_recall_duration_seconds", "One recall (HTTP or MCP), from request to result",
            buckets=LATENCY_BUCKETS, registry=registry,
        )  # fmt: skip
        self.items = Histogram(
            "beliefstream_recall_result_items", "Items a recall returned (beliefs and quoted episodes)",
            buckets=ITEM_BUCKETS, registry=registry,
        )  # fmt: skip
        self.tokens = Histogram(
            "beliefstream_recall_result_tokens", "Tokens of a recall's result, as counted against its budget",
            buckets=TOKEN_BUCKETS, registry=registry,
        )  # fmt: skip
        self.suppressed = Counter(
            "beliefstream_recall_suppressed", "Candidates a recall withheld, by reason", ("reason",), registry=registry
        )
        self._reason_children: dict[str, Any] = {}  # reason -> its child of `suppressed` (`labels` locks and checks)

    def observe_result(self, items: int, tokens: int, suppressed: Iterable[tuple[str, str]]) -> None:
        self.items.observe(items)
        self.tokens.observe(tokens)
        by_reason: dict[str, int] = {}
        for _, why in suppressed:
            reason = suppression_reason(why)
            by_reason[reason] = by_reason.get(reason, 0) + 1
        for reason, count in by_reason.items():
            child = self._reason_children.get(reason)
            if child is None:
                child = self._reason_children[reason] = self.suppressed.labels(reason)
            child.inc(count)


@functools.cache
def recall_metrics() -> RecallMetrics:
    """The process's recall metrics (collectors register once per registry)."""
    return RecallMetrics()


R = TypeVar("R")


def measured(recall: Callable[..., Awaitable[R]]) -> Callable[..., Awaitable[R]]:
    """Time `RecallService.recall(principal, request)` and trace it as `beliefstream.recall`."""

    @functools.wraps(recall)
    async def timed(self: Any, principal: Any, request: Any) -> R:
        metrics = recall_metrics()
        started = time.perf_counter()
        with span("beliefstream.recall", {"beliefstream.tenant_id": principal.tenant_id}) as current:
            result = await recall(self, principal, request)
            set_attributes(current, {"beliefstream.items": len(result.memories), "beliefstream.tokens": result.tokens_used})
        metrics.seconds.observe(time.perf_counter() - started)
        return result

    return timed
