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
