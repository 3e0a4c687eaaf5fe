"""Tracing: the exporter comes from the standard OTEL_* variables; a failed span records the
exception's type, never its message."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from beliefs.errors import ConfigurationError
from streams import tracing


@pytest.fixture(autouse=True)
def off_afterwards() -> Iterator[None]:
    tracing.disable_tracing()
    yield
    tracing.disable_tracing()


def test_off_by_default_a_span_yields_nothing() -> None:
    with tracing.span("beliefstream.recall", {"beliefstream.tenant_id": "acme"}) as current:
        assert current is None
    tracing.set_attributes(current, {"beliefstream.items": 3})  # a no-op, not an error
    assert not tracing.tracing_enabled()


def test_a_failed_span_keeps_the_exception_type_only() -> None:
    spans = InMemorySpanExporter()
    tracing.configure_tracing(SimpleSpanProcessor(spans))
    with pytest.raises(ValueError), tracing.span("beliefstream.extract", {"beliefstream.turns": 1}):
        raise ValueError("cannot read 'the pear tree behind the bakery'")
    (span,) = spans.get_finished_spans()
    assert span.status.description == "ValueError" and span.attributes["error.type"] == "ValueError"
    assert "pear tree" not in span.to_json() and not span.events


@pytest.mark.parametrize("exporter", ["console", "none", "otlp", "console,none"])
def test_the_exporter_is_the_one_otel_traces_exporter_names(exporter: str) -> None:
    tracing.configure_tracing(environ={"OTEL_TRACES_EXPORTER": exporter})
    assert tracing.tracing_enabled()


@pytest.mark.parametrize(
    "environ",
    [{"OTEL_TRACES_EXPORTER": "zipkin"}, {"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}],
)
def test_an_exporter_that_is_not_installed_is_a_configuration_error(environ: dict[str, str]) -> None:
    with pytest.raises(ConfigurationError):
        tracing.configure_tracing(environ=environ)
    assert not tracing.tracing_enabled()


def test_a_retained_turn_carries_its_trace_and_the_batch_that_reads_it_links_to_it() -> None:
    from beliefs.records import Role, Turn
    from sidecar.publisher import turn_record

    turn = Turn(turn_id="t-1", tenant_id="acme", user_id="u", role=Role.USER, text="hello")
    assert turn_record("turns", turn).headers is None  # tracing off: nothing added to the record
    assert tracing.span_links([[("traceparent", b"00-" + b"1" * 32 + b"-" + b"2" * 16 + b"-01")]]) == []

    spans = InMemorySpanExporter()
    tracing.configure_tracing(SimpleSpanProcessor(spans))
    with tracing.span("beliefstream.retain"):
        record = turn_record("turns", turn)
    assert record.headers and record.headers[0][0] == "traceparent"
    links = tracing.span_links([record.headers, None, dict(record.headers)])  # one link per retain span
    with tracing.span("beliefstream.extract", links=links):
        pass
    retain, extract = spans.get_finished_spans()
    assert [link.context.span_id for link in extract.links] == [retain.context.span_id]
    assert extract.context.trace_id != retain.context.trace_id  # a batch reads many turns: links, not a parent
