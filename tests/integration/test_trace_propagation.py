"""Trace context across the broker: a turn published inside the retain span reaches the worker in
its record headers, and the worker's extract span links to that retain span."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from integration.harness import running_worker, wait_for
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from beliefs.records import Role, Turn
from sidecar.publisher import TopicTurnPublisher
from streams.tracing import configure_tracing, disable_tracing, span

pytestmark = pytest.mark.integration


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    configure_tracing(SimpleSpanProcessor(exporter))
    try:
        yield exporter
    finally:
        disable_tracing()


async def test_the_worker_links_its_batch_to_the_retain_span_of_each_turn(settings, tenant: str, spans) -> None:
    async with running_worker(settings) as worker:
        publisher = TopicTurnPublisher(worker.clients.producer, settings.turns_topic)
        turn = Turn(turn_id="t-1", tenant_id=tenant, user_id="u-1", role=Role.USER, text="I prefer tea.")
        with span("beliefstream.retain", {"beliefstream.tenant_id": tenant}):
            await publisher.publish([turn])

        def finished(name: str) -> list:
            return [s for s in spans.get_finished_spans() if s.name == name]

        async def written() -> bool:
            return any(tenant in s.attributes["beliefstream.tenant_ids"] for s in finished("beliefstream.write"))

        await wait_for(written, timeout=90, what="the worker to write the turn")
    (retain,) = finished("beliefstream.retain")
    extract = next(s for s in finished("beliefstream.extract") if tenant in s.attributes["beliefstream.tenant_ids"])
    assert retain.context.span_id in {link.context.span_id for link in extract.links}
