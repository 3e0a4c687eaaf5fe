"""The idle relay of the event outbox: events the sidecar wrote leave without waiting for a turn.

The ingest agent publishes the outbox after each batch it writes. Edits, revocations, direct
inserts and resolutions are written by the sidecar, between batches; without this relay their
events (and the webhook deliveries owed for them) would wait for the next turn to arrive. The
worker runs it every `BELIEFSTREAM_EVENT_RELAY_INTERVAL_S`. Publishing is at least once, as
everywhere on the events topic; webhook deliveries are owed once per event whichever relay
acknowledges it (`sinks.sql.webhooks.acknowledge`).
"""

from __future__ import annotations

from sinks.contracts import EventOutbox
from sinks.producer import OutRecord, RecordProducer

BATCH = 1000


async def relay_events(store: EventOutbox, producer: RecordProducer, batch: int = BATCH) -> int:
    """Publish every pending outbox record, then acknowledge it; how many were relayed."""
    relayed = 0
    while pending := await store.pending_events(limit=batch):
        await producer.send_many([OutRecord(e.topic, e.key.encode(), e.value) for e in pending])
        await store.ack_events([e.seq for e in pending])
        relayed += len(pending)
        if len(pending) < batch:
            break
    return relayed
