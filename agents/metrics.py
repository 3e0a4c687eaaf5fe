"""The worker's Prometheus metrics: the write path (from each batch's `BatchReport` and the sink
calls), the consumer lag and the maintenance jobs (the LLM calls' are in `llm.metrics`).

They live in prometheus-client's process registry, so `beliefstream dev` shows them on the sidecar's
`/metrics` beside the HTTP metrics, and a standalone worker serves them on
`BELIEFSTREAM_WORKER_METRICS_PORT`. Names follow Prometheus conventions (`_total`, `_seconds`).
Labels are bounded sets (reasons, types, sinks, partitions), never ids or text.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable
from datetime import datetime

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram

from agents.batch import BatchReport
from beliefs.records import utcnow
from llm.metrics import CALL_BUCKETS, LlmMetrics, llm_metrics

#: Batch durations in seconds: a micro-batch takes from tens of milliseconds to a few seconds.
BATCH_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
#: Turns per batch, up to the largest configurable micro-batch.
SIZE_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
#: Maintenance runs: a second to an hour.
RUN_BUCKETS = (0.1, 0.5, 1.0, 5.0, 15.0, 60.0, 300.0, 900.0, 3600.0)


class IngestMetrics:
    """Counters and histograms of the write path, and the consumer lag gauge."""

    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        def counter(name: str, doc: str, labels: tuple[str, ...] = ()) -> Counter:
            return Counter(name, doc, labels, registry=registry)

        def histogram(name: str, doc: str, buckets: tuple[float, ...], labels: tuple[str, ...] = ()) -> Histogram:
            return Histogram(name, doc, labels, buckets=buckets, registry=registry)

        self.consumed = counter("beliefstream_turns_consumed", "Turns read from the turns topic")
        self.skipped = counter("beliefstream_turns_skipped", "Turns kept as no memory, by reason", ("reason",))
        self.extraction_gate = counter(
            "beliefstream_extraction_gate",
            "Turns after the strip, secret and junk steps: 'extracted' reached the extractor, else why not",
            ("outcome",),
        )
        self.failed = counter("beliefstream_turns_failed", "Turns whose processing failed (their job says why)")
        self.replayed = counter("beliefstream_turns_replayed", "Turns delivered again and left untouched")
        self.erased = counter(
            "beliefstream_turns_dropped_for_erasure", "Turns accepted before their user's erasure, refused (nothing kept)"
        )
        self.dead_lettered = counter(
            "beliefstream_dlq_records", "Records sent to the dead-letter topic, by reason", ("reason",)
        )
        self.memories = counter(
            "beliefstream_memories_written", "New memory rows, by type and trust", ("type", "trust")
        )
        self.episodes = counter(
            "beliefstream_episodes_written", "Turns kept as said (episodes), by role and trust", ("role", "trust")
        )
        self.confirmations = counter("beliefstream_confirmations", "Existing beliefs confirmed again")
        self.supersessions = counter("beliefstream_supersessions", "Beliefs superseded by a newer claim")
        self.contested = counter("beliefstream_contested_opened", "Beliefs that joined a contradiction loop")
        self.batch_seconds = histogram(
            "beliefstream_batch_duration_seconds", "From reading a batch to every sink acknowledging it", BATCH_BUCKETS
        )
        self.batch_turns = histogram("beliefstream_batch_turns", "Turns per micro-batch", SIZE_BUCKETS)
        self.extraction_seconds = histogram(
            "beliefstream_extraction_duration_seconds", "Extraction of one micro-batch's claims", BATCH_BUCKETS
        )
        self.embedding_texts = histogram(
            "beliefstream_embedding_batch_texts", "Texts per write-path embedding call", SIZE_BUCKETS
        )
        self.embedding_seconds = histogram(
            "beliefstream_embedding_duration_seconds", "One write-path embedding call, retries included", BATCH_BUCKETS
        )
        self.sink_seconds = histogram(
            "beliefstream_sink_write_duration_seconds", "One successful sink call of the write path, by sink",
            CALL_BUCKETS, ("sink",),
        )  # fmt: skip
        self.sink_retries = counter(
            "beliefstream_sink_retries", "Sink calls retried, by sink and kind (backpressure, outage, error)",
            ("sink", "kind"),
        )  # fmt: skip
        self.lag = Gauge(
            "beliefstream_consumer_lag",
            "Records of the turns topic not yet committed by the worker group, by partition",
            ("topic", "partition"),
            registry=registry,
        )

    def observe(self, report: BatchReport) -> None:
        """Count one written batch."""
        self.consumed.inc(report.received)
        self.failed.inc(report.failed)
        self.replayed.inc(report.replayed)
        self.erased.inc(report.erased)
        self.confirmations.inc(report.confirmed)
        self.supersessions.inc(report.superseded)
        self.contested.inc(report.contested)
        for reason, n in report.skip_reasons.items():
            self.skipped.labels(reason).inc(n)
        for reason, n in report.dlq_reasons.items():
            self.dead_lettered.labels(reason).inc(n)
        for (memory_type, trust), n in report.written.items():
            self.memories.labels(memory_type, trust).inc(n)
        for (role, trust), n in report.episodes_written.items():
            self.episodes.labels(role, trust).inc(n)
        self.batch_seconds.observe(report.seconds)
        self.batch_turns.observe(report.received)


class JobMetrics:
    """The maintenance jobs: decay and consolidation runs, how long and how many rows."""

    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        self.seconds = Histogram(
            "beliefstream_job_duration_seconds", "One maintenance run, by job (decay, consolidation)",
            ("job",), buckets=RUN_BUCKETS, registry=registry,
        )  # fmt: skip
        self.rows = Counter(
            "beliefstream_job_rows", "Rows a maintenance job read or changed, by job and action",
            ("job", "action"), registry=registry,
        )  # fmt: skip

    def observe(self, job: str, seconds: float, rows: dict[str, int]) -> None:
        self.seconds.labels(job).observe(seconds)
        for action, n in rows.items():
            self.rows.labels(job, action).inc(n)


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


class WorkerMetrics:
    """Every worker-side family, in one registry."""

    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        self.ingest = IngestMetrics(registry)
        self.jobs = JobMetrics(registry)
        self.llm = llm_metrics() if registry is REGISTRY else LlmMetrics(registry)
        self.projection = ProjectionMetrics(registry)


@functools.cache
def worker_metrics() -> WorkerMetrics:
    """The process's worker metrics (collectors register once per registry)."""
    return WorkerMetrics()


def ingest_metrics() -> IngestMetrics:
    return worker_metrics().ingest


def done_timer(histogram: Histogram, started: float) -> Callable[[asyncio.Future], None]:
    """A done-callback observing the seconds since `started` (a `perf_counter`) if the future succeeded."""

    def observe(future: asyncio.Future) -> None:
        if not future.cancelled() and future.exception() is None:
            histogram.observe(time.perf_counter() - started)

    return observe


@functools.cache
def projection_metrics() -> ProjectionMetrics:
    """The process's projection metrics, in the worker registry."""
    return worker_metrics().projection
