"""The worker's metrics count what each batch report says and what the write path, the jobs and the
LLM calls do; the sidecar's /metrics shows them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from prometheus_client import REGISTRY, CollectorRegistry

from agents.batch import BatchReport
from agents.decay_job import run_decay
from agents.metrics import IngestMetrics, ProjectionMetrics, ingest_metrics, projection_metrics
from beliefs.records import Role, Turn, utcnow
from llm.call import ask_text
from llm.errors import LlmCallError
from llm.extractor import AnthropicExtractor, make_client
from reading.extract.rules import RulesExtractor
from sidecar.metrics import RequestMetrics
from sinks.errors import SinkUnavailableError
from sinks.sql.manage_store import MaintenanceStore
from tests.agents.test_pipeline import raw
from tests.llm.fake_anthropic import FakeAnthropic, Reply, claude_settings


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


# -- the write path, the jobs and the LLM calls, measured where they run ------------------------


def sample(name: str, labels: dict[str, str] | None = None) -> float:
    """A sample of the process registry (where the running code counts), 0 when never counted."""
    return REGISTRY.get_sample_value(name, labels or {}) or 0.0


def test_episodes_and_contested_beliefs_are_counted_from_the_report() -> None:
    registry = CollectorRegistry()
    metrics = IngestMetrics(registry)
    report = _report()
    report.contested = 2
    report.episodes_written = {("user", "trusted"): 3, ("tool", "untrusted"): 1}
    metrics.observe(report)
    assert registry.get_sample_value("beliefstream_contested_opened_total") == 2
    assert registry.get_sample_value("beliefstream_episodes_written_total", {"role": "user", "trust": "trusted"}) == 3
    assert registry.get_sample_value("beliefstream_episodes_written_total", {"role": "tool", "trust": "untrusted"}) == 1


async def test_a_written_batch_times_extraction_embedding_and_each_sink(pipeline, tenant: str) -> None:
    before = {
        "sql": sample("beliefstream_sink_write_duration_seconds_count", {"sink": "sql"}),
        "vectors": sample("beliefstream_sink_write_duration_seconds_count", {"sink": "vectors"}),
        "extraction": sample("beliefstream_extraction_duration_seconds_count"),
        "embedded": sample("beliefstream_embedding_batch_texts_sum"),
        "episodes": sample("beliefstream_episodes_written_total", {"role": "user", "trust": "trusted"}),
    }
    raws = [raw(tenant, "t1", "I prefer vim over emacs for editing."), raw(tenant, "t2", "I live in Lisbon now.")]
    report = await pipeline.persist(await pipeline.prepare(raws))
    ingest_metrics().observe(report)  # what the worker's on_batch does
    await pipeline.projector.drain()  # the vector sink is written by the projector

    assert sample("beliefstream_sink_write_duration_seconds_count", {"sink": "sql"}) > before["sql"]
    assert sample("beliefstream_sink_write_duration_seconds_count", {"sink": "vectors"}) > before["vectors"]
    assert sample("beliefstream_extraction_duration_seconds_count") == before["extraction"] + 1
    assert sample("beliefstream_embedding_batch_texts_sum") - before["embedded"] == report.inserted + report.episodes
    assert sample("beliefstream_episodes_written_total", {"role": "user", "trust": "trusted"}) - before["episodes"] == 2


async def test_a_sink_outage_is_counted_as_retries_of_that_sink(pipeline, tenant: str) -> None:
    calls = 0

    async def flaky() -> str:
        nonlocal calls
        calls += 1
        if calls < 3:
            raise SinkUnavailableError("the vector index is down")
        return "ok"

    before = sample("beliefstream_sink_retries_total", {"sink": "vectors", "kind": "outage"})
    pipeline.settings = pipeline.settings.model_copy(update={"sink_retry_initial_s": 0.001})
    assert await pipeline._retrying("vectors", flaky) == "ok"  # noqa: SLF001 - the one retry policy
    assert sample("beliefstream_sink_retries_total", {"sink": "vectors", "kind": "outage"}) - before == 2


async def test_a_decay_run_records_its_duration_and_rows(store, tenant: str) -> None:
    before_runs = sample("beliefstream_job_duration_seconds_count", {"job": "decay"})
    before_rows = sample("beliefstream_job_rows_total", {"job": "decay", "action": "scanned"})
    report = await run_decay(MaintenanceStore.of(store), None, tenant_id=tenant)
    assert sample("beliefstream_job_duration_seconds_count", {"job": "decay"}) == before_runs + 1
    assert sample("beliefstream_job_rows_total", {"job": "decay", "action": "scanned"}) - before_rows == report.rows


async def test_llm_calls_count_tokens_and_failures_by_purpose_and_kind(fake: FakeAnthropic) -> None:
    extractor = AnthropicExtractor(claude_settings(fake.url, extractor="anthropic"), fallback=RulesExtractor())
    labels = {"purpose": "extraction"}
    before = {
        "calls": sample("beliefstream_llm_calls_total", labels),
        "input": sample("beliefstream_llm_tokens_total", labels | {"kind": "input"}),
        "5xx": sample("beliefstream_llm_failures_total", labels | {"kind": "status_5xx"}),
        "malformed": sample("beliefstream_llm_failures_total", labels | {"kind": "malformed"}),
    }
    fake.script(Reply.memories(), Reply.error(500), Reply.ok("not json"), Reply.ok("still not json"))
    try:
        for turn_id in ("a", "b", "c"):
            await extractor.extract([Turn(turn_id=turn_id, tenant_id="t", user_id="u", role=Role.USER, text="I like tea.")])
    finally:
        await extractor.aclose()
    assert sample("beliefstream_llm_calls_total", labels) - before["calls"] == 3  # the 500 is a failure
    assert sample("beliefstream_llm_tokens_total", labels | {"kind": "input"}) - before["input"] == sum(
        usage["input_tokens"] for usage in fake.usages
    )
    assert sample("beliefstream_llm_failures_total", labels | {"kind": "status_5xx"}) - before["5xx"] == 1
    assert sample("beliefstream_llm_failures_total", labels | {"kind": "malformed"}) - before["malformed"] == 2


async def test_the_shared_llm_helper_counts_under_its_callers_purpose(fake: FakeAnthropic) -> None:
    client = make_client(claude_settings(fake.url))
    before = sample("beliefstream_llm_tokens_total", {"purpose": "reflect", "kind": "output"})
    fake.script(Reply.ok("an answer of some length"), Reply.error(429, retry_after_ms=1))
    try:
        await ask_text(client, model="m", max_tokens=10, system="s", messages=[{"role": "user", "content": "q"}], purpose="reflect")
        with pytest.raises(LlmCallError):
            await ask_text(client, model="m", max_tokens=10, system="s", messages=[{"role": "user", "content": "q"}], purpose="reflect")
    finally:
        await client.close()
    assert sample("beliefstream_llm_tokens_total", {"purpose": "reflect", "kind": "output"}) > before
    assert sample("beliefstream_llm_failures_total", {"purpose": "reflect", "kind": "status_429"}) >= 1
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
