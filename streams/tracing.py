"""Optional OpenTelemetry spans: off by default, and then free (no SDK, not even the API imported).

`BELIEFSTREAM_TRACING=on` makes the entry point call `configure_tracing`, which installs the SDK's
tracer provider with the exporter the standard variables name (`OTEL_TRACES_EXPORTER`: `otlp`,
the default, or `console`, `none`; `OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_SERVICE_NAME`,
`OTEL_TRACES_SAMPLER`, `OTEL_BSP_*` are read by the SDK itself). Code opens spans with `span(...)`;
while tracing is off that is a shared null context. Span attributes carry ids and counts, never
the text of a turn or a query. A retained turn carries its span's W3C trace context in its record
headers (`trace_headers`), and the worker's batch spans link to the turns they read (`span_links`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from importlib.metadata import entry_points
from typing import Any

from beliefs.errors import ConfigurationError

#: The instrumentation scope of every span.
SCOPE = "beliefstream"
_NULL = contextlib.nullcontext()
_tracer: Any = None  # an opentelemetry Tracer once tracing is on; None means off

Attributes = Mapping[str, str | int | float | bool | list[str]]
#: Kafka record headers as aiokafka takes and gives them.
Headers = Sequence[tuple[str, bytes]]


def tracing_enabled() -> bool:
    return _tracer is not None


def span(
    name: str, attributes: Attributes | None = None, links: Sequence[Any] = ()
) -> contextlib.AbstractContextManager[Any]:
    """A span named `name` (a null context yielding None while tracing is off)."""
    if _tracer is None:
        return _NULL
    return _live_span(name, attributes, links)


def trace_headers() -> tuple[tuple[str, bytes], ...] | None:
    """The current span's W3C trace context as record headers; None while tracing is off."""
    if _tracer is None:
        return None
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    carrier: dict[str, str] = {}
    TraceContextTextMapPropagator().inject(carrier)
    return tuple((name, value.encode()) for name, value in carrier.items()) or None


def span_links(header_sets: Iterable[Headers | Mapping[str, bytes] | None]) -> list[Any]:
    """Links to the spans whose trace context the records' headers carry (none while tracing is off)."""
    if _tracer is None:
        return []
    from opentelemetry.trace import Link, get_current_span
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    propagator = TraceContextTextMapPropagator()
    links: dict[tuple[int, int], Any] = {}
    for headers in header_sets:
        if not headers:
            continue
        pairs = headers.items() if isinstance(headers, Mapping) else headers
        carrier = {name: bytes(value).decode("latin-1") for name, value in pairs if value is not None}
        context = get_current_span(propagator.extract(carrier)).get_span_context()
        if context.is_valid:
            links.setdefault((context.trace_id, context.span_id), Link(context))
    return list(links.values())


@contextlib.contextmanager
def _live_span(name: str, attributes: Attributes | None, links: Sequence[Any]) -> Iterator[Any]:
    """A current span whose failure is recorded by exception type only: an exception's message
    may quote the text of a turn, so it is never put in a span event or status."""
    from opentelemetry.trace import Status, StatusCode

    with _tracer.start_as_current_span(
        name,
        attributes=dict(attributes or {}),
        links=list(links),
        record_exception=False,
        set_status_on_exception=False,
    ) as current:
        try:
            yield current
        except BaseException as exc:
            current.set_status(Status(StatusCode.ERROR, type(exc).__name__))
            current.set_attribute("error.type", type(exc).__qualname__)
            raise


def set_attributes(current: Any, attributes: Attributes) -> None:
    """Add attributes to the span `span(...)` yielded (nothing while tracing is off)."""
    if current is not None:
        current.set_attributes(dict(attributes))


def _exporter(name: str, environ: Mapping[str, str]) -> Any:
    """The span exporter registered under `name` (the SDK's entry-point group, as its autoconfig).
    `otlp` is OTLP over HTTP/protobuf, the protocol the specification makes the default and the one
    installed with beliefstream."""
    group = "opentelemetry_traces_exporter"
    found = list(entry_points(group=group, name=name))
    if not found and name == "otlp":
        protocol = environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or environ.get(
            "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"
        )
        if protocol != "http/protobuf":
            raise ConfigurationError(f"OTLP protocol {protocol!r} is not installed; use http/protobuf")
        found = list(entry_points(group=group, name="otlp_proto_http"))
    if not found:
        raise ConfigurationError(f"OTEL_TRACES_EXPORTER={name}: no such span exporter (otlp, console, none)")
    return found[0].load()()


def configure_tracing(processor: Any = None, environ: Mapping[str, str] | None = None) -> None:
    """Install the SDK's tracer provider; idempotent. `processor` replaces the exporter from
    `OTEL_TRACES_EXPORTER` (tests pass a SimpleSpanProcessor over an in-memory exporter)."""
    global _tracer
    if _tracer is not None and processor is None:
        return
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    environ = os.environ if environ is None else environ
    resource = Resource.create({} if environ.get("OTEL_SERVICE_NAME") else {"service.name": SCOPE})
    provider = TracerProvider(resource=resource)
    if processor is None:
        names = [n.strip() for n in environ.get("OTEL_TRACES_EXPORTER", "otlp").split(",") if n.strip()]
        for name in names:
            if name != "none":
                provider.add_span_processor(BatchSpanProcessor(_exporter(name, environ)))
    else:
        provider.add_span_processor(processor)
    _tracer = provider.get_tracer(SCOPE)


def disable_tracing() -> None:
    """Back to no spans (tests; a provider already handed out keeps its processors)."""
    global _tracer
    _tracer = None

