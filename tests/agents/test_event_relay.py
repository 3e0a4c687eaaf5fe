"""The idle relay: events the sidecar wrote (here a direct insert, then a revocation) reach the topic
and the webhook deliveries without a turn, once each."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime

from agents.event_relay import relay_events
from agents.periodic import run_periodically
from beliefs.records import Memory, MemoryType
from sinks.sql import SqlMemoryStore
from sinks.sql.webhooks import WebhookDeliveries
from tests.recording_producer import RecordingProducer

EVENTS = "beliefstream.memory.events"


def _memory(tenant: str) -> Memory:
    at = datetime(2026, 11, 20, tzinfo=UTC)
    return Memory(id=f"m-{tenant}", tenant_id=tenant, user_id="u-1", text="The user prefers tea.",
                  type=MemoryType.PREFERENCE, topic="personal", importance=0.5, confidence=0.9,
                  created_at=at, valid_from=at)


async def test_sidecar_events_are_relayed_and_owed_to_webhooks_once(isolated_sql_url, tenant):
    store = SqlMemoryStore(isolated_sql_url, events_topic=EVENTS, webhook_urls=["http://hooks.test/a"])
    await store.setup()
    try:
        producer = RecordingProducer()
        await store.insert_memory(_memory(tenant), None)
        await store.revoke(tenant, f"m-{tenant}", datetime(2026, 11, 21, tzinfo=UTC))
        # two relays at once (the ingest agent's and the idle one) acknowledge the same rows
        first, second = await asyncio.gather(relay_events(store, producer), relay_events(store, producer))
        assert first + second >= 2
        kinds = [json.loads(r.value)["kind"] for r in producer.on(EVENTS)]
        assert set(kinds) == {"created", "revoked"}
        assert await store.pending_events() == []
        assert await WebhookDeliveries(store._engine).counts() == {"pending": 2}  # once per event
        assert await relay_events(store, producer) == 0
    finally:
        await store.close()


async def test_the_worker_loop_relays_until_stopped(isolated_sql_url, tenant):
    store = SqlMemoryStore(isolated_sql_url, events_topic=EVENTS)
    await store.setup()
    try:
        producer = RecordingProducer()
        stop = asyncio.Event()
        loop = asyncio.create_task(run_periodically(0.02, lambda: relay_events(store, producer), stop))
        await store.insert_memory(_memory(tenant), None)
        for _ in range(200):
            if producer.on(EVENTS):
                break
            await asyncio.sleep(0.02)
        stop.set()
        await asyncio.wait_for(loop, 5)
        assert [json.loads(r.value)["memory_id"] for r in producer.on(EVENTS)] == [f"m-{tenant}"]
    finally:
        await store.close()
