"""Webhooks end to end: memory events leave the SQL outbox as signed POSTs to a real local HTTP
receiver, which checks the signature and fails the first attempt; the retry delivers. On SQLite and
PostgreSQL (each test its own database: deliveries are claimed across tenants)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime

import httpx
import pytest

from agents.webhooks import WebhookDispatcher
from beliefs.records import Memory, MemoryType
from sinks.sql import SqlMemoryStore
from sinks.sql.webhooks import WebhookDeliveries
from tests.webhook_receiver import SECRET, Receiver

EVENTS = "beliefstream.memory.events"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver(fail_first=1) as running:
        yield running


@pytest.fixture
async def store(isolated_sql_url, receiver) -> AsyncIterator[SqlMemoryStore]:
    sql = SqlMemoryStore(isolated_sql_url, events_topic=EVENTS, webhook_urls=[receiver.url])
    await sql.setup()
    try:
        yield sql
    finally:
        await sql.close()


def _memory(tenant: str) -> Memory:
    at = datetime(2026, 11, 20, tzinfo=UTC)
    return Memory(id=f"m-{tenant}", tenant_id=tenant, user_id="u-1", text="The user prefers tea.",
                  type=MemoryType.PREFERENCE, topic="personal", importance=0.5, confidence=0.9,
                  entity="user", attribute="likes", value="tea", created_at=at, valid_from=at)


async def relay(store: SqlMemoryStore) -> list[int]:
    """What the worker does after each batch: publish the outbox (here: read it), then acknowledge it."""
    pending = await store.pending_events()
    await store.ack_events([event.seq for event in pending])
    await store.ack_events([event.seq for event in pending])  # a replayed ack owes nothing twice
    return [event.seq for event in pending]


def dispatcher(store: SqlMemoryStore, http: httpx.AsyncClient, **options) -> WebhookDispatcher:
    return WebhookDispatcher(WebhookDeliveries(store._engine), SECRET, http, retry_initial_s=0.05, **options)


async def test_an_event_is_delivered_signed_after_a_failed_first_attempt(store, receiver, tenant):
    await store.insert_memory(_memory(tenant), [0.1, 0.2, 0.3])
    assert len(await relay(store)) == 1
    deliveries = WebhookDeliveries(store._engine)
    assert await deliveries.counts() == {"pending": 1}

    async with httpx.AsyncClient() as http:
        sender = dispatcher(store, http)
        assert await sender.run_once() == 1  # the receiver answers 500
        assert await deliveries.counts() == {"pending": 1}
        assert await sender.run_once() == 0  # not due yet: the retry waits its backoff
        await asyncio.sleep(0.1)
        assert await sender.run_once() == 1
    assert await deliveries.counts() == {"delivered": 1}
    first, second = receiver.received
    assert first["valid"] and second["valid"] and first["delivery"] == second["delivery"]
    assert second["event"]["kind"] == "created" and second["event"]["memory_id"] == f"m-{tenant}"


async def test_a_receiver_that_never_accepts_fails_the_delivery_after_max_attempts(store, receiver, tenant):
    receiver.remaining_failures = 100
    await store.insert_memory(_memory(tenant), None)
    await relay(store)
    deliveries = WebhookDeliveries(store._engine)
    async with httpx.AsyncClient() as http:
        sender = dispatcher(store, http, max_attempts=2)
        await sender.run_once()
        await asyncio.sleep(0.1)
        await sender.run_once()
        await asyncio.sleep(0.2)
        assert await sender.run_once() == 0
    assert await deliveries.counts() == {"failed": 1}
    assert len(receiver.received) == 2


async def test_the_dispatcher_loop_delivers_until_stopped(store, receiver, tenant):
    await store.insert_memory(_memory(tenant), None)
    await relay(store)
    stop = asyncio.Event()
    async with httpx.AsyncClient() as http:
        running = asyncio.create_task(dispatcher(store, http).run(stop, poll_s=0.02))
        deadline = time.monotonic() + 10
        while (await WebhookDeliveries(store._engine).counts()).get("delivered") != 1:
            assert time.monotonic() < deadline, "not delivered"
            await asyncio.sleep(0.05)
        stop.set()
        await asyncio.wait_for(running, 5)
    assert [r["valid"] for r in receiver.received] == [True, True]
