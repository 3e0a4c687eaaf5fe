"""Helpers of the live layer: run a worker in the test's loop, publish, wait, read a topic."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

from aiokafka import AIOKafkaConsumer

from launch.runtime import Clients, open_clients, run_worker
from sinks.sql.vector_outbox import SqlVectorOutbox
from streams.publish import publish_records
from streams.settings import Settings


@dataclass
class RunningWorker:
    settings: Settings
    clients: Clients
    stop: asyncio.Event
    task: asyncio.Task


@contextlib.asynccontextmanager
async def running_worker(
    settings: Settings, wrap: Callable[[Clients], Clients] | None = None
) -> AsyncIterator[RunningWorker]:
    """A worker consuming the test's topic in this event loop, stopped cleanly at exit."""
    async with open_clients(settings, settings.broker) as clients:
        if wrap is not None:
            clients = wrap(clients)
        stop = asyncio.Event()
        task = asyncio.create_task(run_worker(settings, settings.broker, clients, stop))
        try:
            yield RunningWorker(settings, clients, stop, task)
        finally:
            stop.set()
            await asyncio.wait_for(task, timeout=30)


async def publish(settings: Settings, documents: list[dict | bytes]) -> None:
    """Publish turns (dicts, keyed tenant:user) or raw bytes (no key) to the test's turns topic."""
    records = []
    for document in documents:
        if isinstance(document, bytes):
            records.append((None, document))
        else:
            key = f"{document.get('tenant_id')}:{document.get('user_id')}".encode()
            records.append((key, json.dumps(document).encode()))
    bootstrap = settings.broker.removeprefix("kafka://")
    await publish_records(records, bootstrap, settings.turns_topic)


async def wait_for(predicate: Callable[[], Awaitable[bool]], timeout: float = 60.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if await predicate():
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what or predicate}")


async def read_topic(
    settings: Settings, topic: str, expect: int, timeout: float = 20.0
) -> list[tuple[bytes | None, bytes]]:
    """Read a topic from the beginning until `expect` records arrived (or the timeout)."""
    consumer = AIOKafkaConsumer(
        topic,
        bootstrap_servers=settings.broker.removeprefix("kafka://"),
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        group_id=None,
    )
    await consumer.start()
    records: list[tuple[bytes | None, bytes]] = []
    try:
        deadline = time.monotonic() + timeout
        while len(records) < expect and time.monotonic() < deadline:
            batch = await consumer.getmany(timeout_ms=200)
            for messages in batch.values():
                records.extend((m.key, m.value) for m in messages)
    finally:
        await consumer.stop()
    return records


async def sinks_drained(store) -> bool:
    """True once every committed change reached the vector index and the events topic.

    A job reads `done` at the SQL commit; its vector points and events follow from the outbox
    moments later, so tests that look at the index or the topic wait for this first.
    """
    return (
        await SqlVectorOutbox.of(store).pending_vectors() == []
        and await SqlVectorOutbox.of(store).pending_episode_vectors() == []
        and await store.pending_events() == []
    )
