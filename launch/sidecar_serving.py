"""Serving the HTTP sidecar inside a process the runner owns: the recall service over the
process's clients, uvicorn on the shared event loop, the MCP tools and the turn publisher.

`launch/runtime.py` builds the clients; this module only composes the sidecar from them.
"""

from __future__ import annotations

import asyncio
import contextlib

import uvicorn

from launch.reaper import replays_intake
from launch.runtime import Clients
from streams.gc_tuning import tune_for_throughput
from streams.settings import Settings


class _SharedLoopServer(uvicorn.Server):
    """uvicorn inside a loop it does not own: signals belong to the process runner, not to uvicorn."""

    @contextlib.contextmanager
    def capture_signals(self):  # type: ignore[override]
        yield


def recall_service(settings: Settings, clients: Clients):
    """The recall service over the process's clients; reads are audited in SQL, and on the audit topic
    of a Kafka cluster (`BELIEFSTREAM_BROKER`), not on `dev`'s embedded broker."""
    from sidecar.recall.access import AccessRecorder
    from sidecar.recall.audit import AuditLog
    from sidecar.recall.config import preset
    from sidecar.recall.service import RecallService

    return RecallService(
        clients.store,
        clients.vectors,
        clients.embedder,
        config=preset(settings.recall_preset),
        # the embedded broker keeps its log in memory: audit records there would only grow it (SQL keeps them)
        audit=AuditLog(clients.store, clients.producer if settings.broker else None, topic=settings.audit_topic),
        access_recorder=AccessRecorder(clients.store),
    )


async def run_sidecar(
    settings: Settings, clients: Clients, stop: asyncio.Event, accepting: asyncio.Event | None = None
) -> None:
    """Serve the HTTP sidecar until `stop` is set; retained turns go out on `clients.producer`.
    With `accepting`, serving starts once it is set (the worker re-published the intake and consumes)."""
    if clients.vectors is None:
        raise SystemExit(
            "the sidecar searches the vector index, which this process does not open "
            "(BELIEFSTREAM_VECTOR_PROJECTOR=off over an embedded shard): run it where the projector is on"
        )
    if accepting is not None:
        await first_of(accepting, stop)
        if stop.is_set():
            return
    from sidecar.app import create_app as create_sidecar
    from sidecar.mcp_tools import McpTools
    from sidecar.publisher import TopicTurnPublisher
    from sidecar.reflect_llm import make_answerer
    from sinks.sql.admin import AdminStore

    publisher = TopicTurnPublisher(
        clients.producer,
        settings.turns_topic,
        ack_timeout_s=settings.broker_ack_timeout_s,
        replayed=accepting if accepting is not None and replays_intake(settings) else None,
    )
    recall = recall_service(settings, clients)
    answerer = make_answerer(settings)  # None: reflect answers extractively (the offline default)
    await recall.start()
    tune_for_throughput()
    try:
        tools = McpTools(
            clients.store,
            publisher,
            settings.max_turn_bytes,
            recall=recall,
            consolidator=clients.consolidator,
            projector=clients.projector,
        )
        api = create_sidecar(
            settings,
            clients.store,
            publisher,
            clients.vectors,
            embedder=clients.embedder,
            recall=recall,
            reflect_answerer=answerer,
            mcp_tools=tools,
            consolidator=clients.consolidator,
            admin=AdminStore.of(clients.store),
            contested=clients.store,
            projector=clients.projector,
        )
        config = uvicorn.Config(
            api, host=settings.host, port=settings.port, log_level="warning", lifespan="on"
        )
        server = _SharedLoopServer(config)
        serving = asyncio.create_task(server.serve())
        stopping = asyncio.create_task(stop.wait())
        done, _ = await asyncio.wait({serving, stopping}, return_when=asyncio.FIRST_COMPLETED)
        server.should_exit = True
        await serving
        stopping.cancel()
        if serving in done and not stop.is_set():
            raise SystemExit(f"the sidecar could not serve on {settings.host}:{settings.port}")
    finally:
        await recall.close()  # flushes access counts and audit records before the store closes
        if answerer is not None:
            await answerer.aclose()


async def first_of(*events: asyncio.Event) -> None:
    waits = [asyncio.create_task(event.wait()) for event in events]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()
