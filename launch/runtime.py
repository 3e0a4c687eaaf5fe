"""Composition of the running system from Settings: clients, the worker, the sidecar, `dev`.

Entry points (the CLI, tests, benchmarks) build Settings and call these; nothing here reads the
environment. In embedded mode the worker and the sidecar share one process and one event loop,
because Qdrant Edge allows a single owner of its shard; they also share the one record producer
`open_clients` starts, so a process holds one acks=all producer whatever it runs, and the one
vector projector (`launch.projection`), when this process projects.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from agents.batch import BatchReport
from agents.consolidate import Consolidator
from agents.consolidate.claude_merge import make_merger
from agents.decay_job import run_decay
from agents.event_relay import relay_events
from agents.extractor_choice import make_extractor
from agents.ingest import register_ingest_agent
from agents.metrics import ingest_metrics
from agents.periodic import run_periodically
from agents.pipeline import WritePipeline
from agents.projector import VectorProjector
from beliefs.records import utcnow
from embedding.embedder import Embedder, load_default_embedder
from launch.lag import watch_lag
from launch.maintenance_wiring import maintenance_loops, windowed_jobs
from launch.projection import open_projection, projector_for
from launch.reaper import (
    ConsumerOffsets,
    IntakeReaper,
    republish_at_start,
    republish_caught_up,
)
from reading.extractor import Extractor
from sinks.base import VectorIndex
from sinks.producer import KafkaRecordProducer, RecordProducer
from sinks.sql.intake import SqlIntake
from sinks.sql.manage_store import MaintenanceStore
from sinks.sql.store import SqlMemoryStore
from streams.faust_app import bootstrap_servers, create_app
from streams.gc_tuning import tune_for_throughput
from streams.settings import Settings
from streams.topics import declare_topics

log = logging.getLogger(__name__)


@dataclass
class Clients:
    """The long-lived clients one process holds; the worker and the sidecar take theirs from here."""

    store: SqlMemoryStore
    vectors: VectorIndex | None  # None: projector off over an embedded shard another process owns
    embedder: Embedder
    extractor: Extractor
    producer: RecordProducer  # the process's only producer: DLQ, events, audit and retained turns
    consolidator: Consolidator
    projector: VectorProjector | None = None  # None: another process projects the vector outbox


def sql_store(settings: Settings) -> SqlMemoryStore:
    """The SQL store with the topics and the contradiction-loop rule from Settings."""
    return SqlMemoryStore(
        settings.resolved_sql_url,
        events_topic=settings.events_topic,
        escalations_topic=settings.escalations_topic,
        loop_threshold=settings.loop_threshold,
        loop_window_days=settings.loop_window_days,
        sqlite_read_threads=settings.sqlite_read_threads,
        webhook_urls=settings.webhook_urls,
    )


@contextlib.asynccontextmanager
async def open_clients(settings: Settings, url: str) -> AsyncIterator[Clients]:
    """Open (and on exit close) the store, the vector index, the models and the producer."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    store = sql_store(settings)
    producer = KafkaRecordProducer(
        bootstrap_servers(url), client_id=f"{settings.app_id}-producer", ack_timeout_s=settings.broker_ack_timeout_s
    )
    async with contextlib.AsyncExitStack() as stack:
        await store.setup()
        stack.push_async_callback(store.close)
        vectors, projector = await stack.enter_async_context(open_projection(settings, store))
        await producer.start()
        stack.push_async_callback(producer.stop)
        embedder = await asyncio.to_thread(
            load_default_embedder, settings.embed_threads, settings.embed_batch_size, settings.embed_niceness
        )
        consolidator = consolidator_for(settings, store, projector, embedder)
        stack.push_async_callback(consolidator.merger.aclose)
        extractor = make_extractor(settings, extraction_context(settings, store))
        yield Clients(store, vectors, embedder, extractor, producer, consolidator, projector)


def extraction_context(settings: Settings, store: SqlMemoryStore):
    """Claude extraction's stored context (session turns, current beliefs), found with recall's own
    query words and store queries; None for the rules, which read a turn alone."""
    if settings.extractor != "anthropic":
        return None
    from agents.extraction_context import StoredTurnContext
    from sidecar.recall.config import preset
    from sidecar.recall.keywords import query_terms

    return StoredTurnContext(
        store, query_terms, turns=settings.extraction_context_turns,
        confidence_floor=preset(settings.recall_preset).confidence_floor,
    )  # fmt: skip


def consolidator_for(
    settings: Settings, store: SqlMemoryStore, projector: VectorProjector | None, embedder: Embedder
) -> Consolidator:
    """Consolidation over the process's clients: Claude merges when the extractor is Claude, else offline."""
    return Consolidator(
        MaintenanceStore.of(store), projector, embedder, make_merger(settings), settings.consolidation_threshold
    )


def decay_job(settings: Settings, store: SqlMemoryStore, projector: VectorProjector | None):
    """One decay pass over every active memory, with the configured λ and boost cap."""
    return functools.partial(
        run_decay,
        MaintenanceStore.of(store),
        projector,
        lam=settings.decay_lambda,
        boost_cap=settings.decay_boost_cap,
        batch_size=settings.decay_batch_size,
    )


async def run_worker(
    settings: Settings,
    url: str,
    clients: Clients,
    stop: asyncio.Event,
    on_batch: Callable[[BatchReport], None] | None = None,
    accepting: asyncio.Event | None = None,
    ingest_model: Embedder | None = None,
) -> None:
    """Consume turns until `stop` is set; finishes the batch in flight before returning.
    `ingest_model`: the write path's model, owned by the caller (else made here, `ingest_embedder`).

    The intake is re-published before anything else, and `accepting` is set once the worker consumes:
    a sidecar that waits for it puts no new turn of a user ahead of that user's older ones, and says
    it is ready only when a turn it accepts is processed.
    """
    started = utcnow()  # turns accepted from now on are published by this process
    app = create_app(settings, url)
    topics = declare_topics(app, settings)
    for topic in (topics.turns, topics.dlq, topics.events, topics.audit, topics.escalations):
        await topic.maybe_declare()
    intake = SqlIntake.of(clients.store)
    replayed = await republish_at_start(settings, intake, clients.producer, started)
    embedder = ingest_model or await ingest_embedder(settings, clients)
    try:
        pipeline = WritePipeline(
            settings, clients.store, clients.projector, embedder, clients.extractor, clients.producer
        )
        maintenance_store = MaintenanceStore.of(clients.store)
        windowed = windowed_jobs(app, settings, maintenance_store, clients.consolidator)
        windowed.register()
        register_ingest_agent(app, topics, pipeline, settings, _measured(on_batch), on_written=windowed.record)
        await pipeline.recover()
        await app.start()
        tune_for_throughput()
        log.info("worker consuming %s from %s", settings.turns_topic, url)
        if accepting is not None:
            accepting.set()
            await republish_caught_up(settings, intake, clients.producer, utcnow(), replayed)
        offsets = ConsumerOffsets(bootstrap_servers(url), settings.app_id, settings.turns_topic)
        periodic = functools.partial(
            run_periodically, retry_initial_s=settings.periodic_retry_initial_s, retry_max_s=settings.periodic_retry_max_s
        )
        reaper = asyncio.create_task(
            periodic(
                settings.intake_reap_interval_s,
                IntakeReaper(intake, clients.producer, offsets, settings),
                stop,
                name="intake reaper",
                initial_delay_s=settings.intake_reap_interval_s,
            ),
            name="intake reaper",
        )
        maintenance = [
            asyncio.create_task(periodic(interval, job, stop, name=name, initial_delay_s=delay), name=name)
            for name, interval, job, delay in maintenance_loops(settings, windowed, maintenance_store)
        ]
        webhooks = asyncio.create_task(run_webhooks(settings, clients.store, stop), name="webhooks")
        lag = asyncio.create_task(watch_lag(settings, url, stop), name="consumer lag")
        relay = asyncio.create_task(
            periodic(
                settings.event_relay_interval_s,
                functools.partial(relay_events, clients.store, clients.producer),
                stop,
                name="event relay",
                initial_delay_s=settings.event_relay_interval_s,
            ),
            name="event relay",
        )
        try:
            await stop.wait()
        finally:
            pipeline.stopping = True
            await app.stop()
            for task in maintenance:
                await task
            await reaper
            await offsets.close()
            await webhooks
            await relay
            await lag
    finally:
        if embedder is not clients.embedder and embedder is not ingest_model:
            await asyncio.to_thread(embedder.close)


def _measured(on_batch: Callable[[BatchReport], None] | None) -> Callable[[BatchReport], None]:
    """`on_batch`, after counting the batch in the process's ingest metrics."""
    metrics = ingest_metrics()

    def observe(report: BatchReport) -> None:
        metrics.observe(report)
        if on_batch is not None:
            on_batch(report)

    return observe


async def run_webhooks(settings: Settings, store: SqlMemoryStore, stop: asyncio.Event) -> None:
    """Deliver memory events to `BELIEFSTREAM_WEBHOOK_URLS` until `stop` is set (nothing when unset)."""
    if not settings.webhook_urls or settings.webhook_secret is None:
        return
    import httpx

    from agents.webhooks import WebhookDispatcher
    from sinks.sql.webhooks import WebhookDeliveries

    async with httpx.AsyncClient() as http:
        dispatcher = WebhookDispatcher(
            WebhookDeliveries(store._engine),
            settings.webhook_secret.get_secret_value(),
            http,
            max_attempts=settings.webhook_max_attempts,
            retry_initial_s=settings.webhook_retry_initial_s,
            retry_max_s=settings.webhook_retry_max_s,
            timeout_s=settings.webhook_timeout_s,
        )
        await dispatcher.run(stop, settings.webhook_poll_s)


async def ingest_embedder(settings: Settings, clients: Clients) -> Embedder:
    """The worker's model: by default in a child process of its own, so the worker's Python and
    the model never wait for each other's GIL (`embedding/process.py`); else the process's."""
    if settings.ingest_embedder == "thread":
        return clients.embedder
    from embedding.process import ProcessEmbedder

    return await asyncio.to_thread(
        ProcessEmbedder, settings.ingest_embed_processes, settings.ingest_embed_threads, settings.embed_batch_size
    )


@contextlib.asynccontextmanager
async def open_maintenance(
    settings: Settings,
) -> AsyncIterator[tuple[SqlMemoryStore, VectorProjector | None, str | None]]:
    """Store and projector for a one-shot job. The job writes SQL and its vector outbox; its points
    are projected here at the end when this process can open the index, else (with a note) by the
    running process that owns the embedded shard: recall reads SQL, so the SQL side alone is correct."""
    from sinks.errors import SinkError, SinkUnavailableError
    from sinks.vectors import make_vector_index

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    store = sql_store(settings)
    await store.setup()
    vectors: VectorIndex | None = make_vector_index(settings) if settings.vector_projector == "on" else None
    note = None if vectors is not None else "vector projector off here: the index's owner projects the changes"
    if vectors is not None:
        try:
            await vectors.setup()
        except SinkUnavailableError as exc:
            vectors, note = None, (
                f"vector index not opened: {exc}. The SQL store, which recall reads, is up to date; "
                "the running process that owns the index projects the changes."
            )
    projector = projector_for(settings, store, vectors) if vectors is not None else None
    try:
        yield store, projector, note
        if projector is not None:
            try:
                await projector.drain()
            except SinkError as exc:
                log.warning("vector points left in the outbox for the next projector: %s", exc)
    finally:
        if vectors is not None:
            await vectors.close()
        await store.close()
