"""The worker's Prometheus metrics, fed from each batch's `BatchReport`.

They live in prometheus-client's process registry, so `beliefstream dev` shows them on the sidecar's
`/metrics` beside the HTTP metrics, and a standalone worker serves them on
`BELIEFSTREAM_WORKER_METRICS_PORT`. Names follow Prometheus conventions (`_total`, `_seconds`).
"""

from __future__ import annotations

import functools
from datetime import datetime

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram

from agents.batch import BatchReport
from beliefs.records import utcnow

#: Batch durations in seconds: a micro-batch takes from tens of milliseconds to a few seconds.
BATCH_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
#: Turns per batch, up to the largest configurable micro-batch.
SIZE_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)


class IngestMetrics:
    """Counters and histograms of the write path."""

    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        def counter(name: str, doc: str, labels: tuple[str, ...] = ()) -> Counter:
            return Counter(name, doc, labels, registry=registry)

        self.consumed = counter("beliefstream_turns_consumed", "Turns read from the turns topic")
        self.skipped = counter("beliefstream_turns_skipped", "Turns kept as no memory, by reason", ("reason",))
        self.failed = counter("beliefstream_turns_failed", "Turns whose processing failed (their job says why)")
        self.replayed = counter("beliefstream_turns_replayed", "Turns delivered again and left untouched")
        self.dead_lettered = counter(
            "beliefstream_dlq_records", "Records sent to the dead-letter topic, by reason", ("reason",)
        )
        self.memories = counter(
            "beliefstream_memories_written", "New memory rows, by type and trust", ("type", "trust")
        )
        self.confirmations = counter("beliefstream_confirmations", "Existing beliefs confirmed again")
        self.supersessions = counter("beliefstream_supersessions", "Beliefs superseded by a newer claim")
        self.batch_seconds = Histogram(
            "beliefstream_batch_duration_seconds",
            "From reading a batch to every sink acknowledging it",
            buckets=BATCH_BUCKETS,
            registry=registry,
        )
        self.batch_turns = Histogram(
            "beliefstream_batch_turns", "Turns per micro-batch", buckets=SIZE_BUCKETS, registry=registry
        )

    def observe(self, report: BatchReport) -> None:
        """Count one written batch."""
        self.consumed.inc(report.received)
        self.failed.inc(report.failed)
        self.replayed.inc(report.replayed)
        self.confirmations.inc(report.confirmed)
        self.supersessions.inc(report.superseded)
        for reason, n in report.skip_reasons.items():
            self.skipped.labels(reason).inc(n)
        for reason, n in report.dlq_reasons.items():
            self.dead_lettered.labels(reason).inc(n)
        for (memory_type, trust), n in report.written.items():
            self.memories.labels(memory_type, trust).inc(n)
        self.batch_seconds.observe(report.seconds)
        self.batch_turns.observe(report.received)


@functools.cache
def ingest_metrics() -> IngestMetrics:
    """The process's ingest metrics (collectors register once per registry)."""
    return IngestMetrics()


class ProjectionMetrics:
    """The vector projector's lag: points the index still owes SQL, and the age of the oldest."""

    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        self.backlog = Gauge(
            "beliefstream_vector_projection_backlog",
            "Vector points owed to the index (rows to write, tombstones to delete)",
            registry=registry,
        )
        self.oldest_age = Gauge(
            "beliefstream_vector_projection_oldest_age_seconds",
            "Age of the oldest point owed to the vector index (0 when none)",
            registry=registry,
        )
        self._oldest_at: datetime | None = None
        self.oldest_age.set_function(self._age)

    def observe(self, points: int, oldest_at: datetime | None) -> None:
        self.backlog.set(points)
        self._oldest_at = oldest_at

    def _age(self) -> float:
        return 0.0 if self._oldest_at is None else max(0.0, (utcnow() - self._oldest_at).total_seconds())


@functools.cache
def projection_metrics() -> ProjectionMetrics:
    """The process's projection metrics (collectors register once per registry)."""
    return ProjectionMetrics()
