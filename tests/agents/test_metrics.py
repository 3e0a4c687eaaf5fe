"""The worker's metrics count what each batch report says, and the sidecar's /metrics shows them."""

from __future__ import annotations

from datetime import timedelta

from prometheus_client import CollectorRegistry

from agents.batch import BatchReport
from agents.metrics import IngestMetrics, ProjectionMetrics, ingest_metrics, projection_metrics
from beliefs.records import utcnow
from sidecar.metrics import RequestMetrics


def _report() -> BatchReport:
    return BatchReport(
        received=5,
        rejected=1,
        replayed=1,
        skipped=2,
        failed=0,
        inserted=2,
        confirmed=1,
        superseded=1,
        seconds=0.2,
        skip_reasons={"greeting": 2},
        dlq_reasons={"invalid_json": 1},
        written={("preference", "trusted"): 2},
    )


def test_a_batch_report_is_counted_by_reason_type_and_trust() -> None:
    registry = CollectorRegistry()
    metrics = IngestMetrics(registry)
    metrics.observe(_report())
    metrics.observe(_report())
    value = registry.get_sample_value
    assert value("beliefstream_turns_consumed_total") == 10
    assert value("beliefstream_turns_skipped_total", {"reason": "greeting"}) == 4
    assert value("beliefstream_dlq_records_total", {"reason": "invalid_json"}) == 2
    assert value("beliefstream_memories_written_total", {"type": "preference", "trust": "trusted"}) == 4
    assert value("beliefstream_supersessions_total") == 2
    assert value("beliefstream_batch_duration_seconds_count") == 2
    assert value("beliefstream_batch_turns_sum") == 10


def test_the_sidecar_metrics_page_carries_the_worker_metrics() -> None:
    ingest_metrics().observe(_report())
    page = RequestMetrics().render().decode()
    assert "beliefstream_turns_consumed_total" in page
    assert "beliefstream_http_requests_total" in page


def test_the_projection_lag_is_the_backlog_and_the_age_of_its_oldest_entry() -> None:
    registry = CollectorRegistry()
    metrics = ProjectionMetrics(registry)
    assert registry.get_sample_value("beliefstream_vector_projection_oldest_age_seconds") == 0.0
    metrics.observe(7, utcnow() - timedelta(minutes=2))
    assert registry.get_sample_value("beliefstream_vector_projection_backlog") == 7
    assert registry.get_sample_value("beliefstream_vector_projection_oldest_age_seconds") >= 120
    metrics.observe(0, None)
    value = registry.get_sample_value
    assert (value("beliefstream_vector_projection_backlog"), value("beliefstream_vector_projection_oldest_age_seconds")) == (0, 0)
    assert projection_metrics() is projection_metrics()  # one set per process, in the worker registry
