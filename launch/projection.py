"""Which process projects the vector outbox, and the projector's life inside it.

`BELIEFSTREAM_VECTOR_PROJECTOR=on` (the default): the process opens the vector index and runs the
one projector (`agents.projector`) for as long as its clients are open. `off`: it writes SQL only;
an embedded Qdrant Edge shard (single owner) is then not opened at all, while a Qdrant server is
still opened for searching. Several processes may project into a Qdrant server (idempotent).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from agents.metrics import projection_metrics
from agents.projector import VectorProjector
from sinks.base import VectorIndex
from sinks.sql.store import SqlMemoryStore
from sinks.sql.vector_outbox import SqlVectorOutbox
from sinks.vectors import make_vector_index
from streams.settings import Settings

log = logging.getLogger(__name__)


def projects(settings: Settings) -> bool:
    return settings.vector_projector == "on"


def opens_index(settings: Settings) -> bool:
    """A projecting process opens the index; another only when it is a server (Edge has one owner)."""
    return projects(settings) or bool(settings.qdrant_url)


def projector_for(settings: Settings, store: SqlMemoryStore, vectors: VectorIndex) -> VectorProjector:
    """The projector over the store's outbox, retrying like the write path, its lag in the worker metrics."""
    metrics = projection_metrics()
    return VectorProjector(
        SqlVectorOutbox.of(store),
        vectors,
        poll_s=settings.vector_projector_poll_s,
        retry_initial_s=settings.sink_retry_initial_s,
        retry_max_s=settings.sink_retry_max_s,
        on_backlog=lambda backlog: metrics.observe(backlog.points, backlog.oldest_at),
    )


@contextlib.asynccontextmanager
async def open_projection(
    settings: Settings, store: SqlMemoryStore
) -> AsyncIterator[tuple[VectorIndex | None, VectorProjector | None]]:
    """The process's vector index (None when it must not open it) and its running projector (None when off)."""
    if not opens_index(settings):
        log.info("vector projector off: this process writes SQL only and leaves the shard to its owner")
        yield None, None
        return
    vectors = make_vector_index(settings)
    await vectors.setup()
    try:
        if not projects(settings):
            yield vectors, None
            return
        projector = projector_for(settings, store, vectors)
        stop = asyncio.Event()
        running = asyncio.create_task(projector.run(stop), name="vector projector")
        try:
            yield vectors, projector
        finally:
            stop.set()
            await running
    finally:
        await vectors.close()
