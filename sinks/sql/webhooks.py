"""The webhook delivery table: filled from the event outbox, drained by `agents.webhooks`.

When the outbox's memory events are acknowledged (published on the events topic), `acknowledge`
adds one delivery per subscribed URL in the same transaction, so every event the topic got is owed to
every subscriber exactly once, and a crash loses none. Deliveries are then claimed when due (a
lease, so two dispatchers rarely send one twice: delivery is at least once), and recorded as
delivered, retried later, or failed for good.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from sinks.contracts import Delivery
from sinks.sql import queries
from sinks.sql.engine import unavailable_on_outage, write_transaction
from sinks.sql.tables import outbox, webhook_deliveries

PENDING, DELIVERED, FAILED = "pending", "delivered", "failed"


async def acknowledge(
    conn: AsyncConnection, seqs: Sequence[int], events_topic: str, urls: Sequence[str], now: datetime
) -> None:
    """Delete these outbox rows and owe each memory event among them to every URL.

    Only the rows this statement deletes are owed, so two relays acknowledging the same rows at
    once (the worker after a batch, its idle relay) enqueue each event once.
    """
    for part in queries.chunked(list(seqs)):
        statement = sa.delete(outbox).where(outbox.c.seq.in_(part))
        if not urls:
            await conn.execute(statement)
            continue
        deleted = (await conn.execute(statement.returning(outbox.c.seq, outbox.c.topic, outbox.c.key,
                                                          outbox.c.value))).all()
        deliveries = [
            {"url": url, "event_key": row.key, "body": bytes(row.value), "state": PENDING, "attempts": 0,
             "next_attempt_at": now, "created_at": now}
            for row in sorted(deleted, key=lambda row: row.seq)
            if row.topic == events_topic
            for url in urls
        ]
        if deliveries:
            await conn.execute(sa.insert(webhook_deliveries), deliveries)


class WebhookDeliveries:
    """`WebhookQueue` (`sinks.contracts`): claims and outcomes of deliveries, over the store's engine."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def claim_due(self, now: datetime, lease_s: float, limit: int = 100) -> list[Delivery]:
        """Deliveries due at `now`, leased until `now + lease_s` so another dispatcher leaves them."""
        lease = now + timedelta(seconds=lease_s)
        due = webhook_deliveries.c
        async with unavailable_on_outage("webhook claim"), write_transaction(self._engine) as conn:
            ids = list(
                (
                    await conn.scalars(
                        sa.select(due.id)
                        .where(due.state == PENDING, due.next_attempt_at <= now)
                        .order_by(due.next_attempt_at, due.id)
                        .limit(limit)
                    )
                ).all()
            )
            if not ids:
                return []
            await conn.execute(
                sa.update(webhook_deliveries)
                .where(due.id.in_(ids), due.state == PENDING, due.next_attempt_at <= now)
                .values(next_attempt_at=lease)
            )
            rows = (
                await conn.execute(
                    sa.select(due.id, due.url, due.body, due.attempts)
                    .where(due.id.in_(ids), due.next_attempt_at == lease)
                    .order_by(due.id)
                )
            ).all()
        return [Delivery(row.id, row.url, bytes(row.body), row.attempts) for row in rows]

    async def delivered(self, delivery_id: int, at: datetime) -> None:
        async with unavailable_on_outage("webhook record"), write_transaction(self._engine) as conn:
            await conn.execute(
                sa.update(webhook_deliveries)
                .where(webhook_deliveries.c.id == delivery_id)
                .values(state=DELIVERED, delivered_at=at, attempts=webhook_deliveries.c.attempts + 1, last_error=None)
            )

    async def failed_attempt(self, delivery_id: int, error: str, retry_at: datetime | None) -> None:
        """One more failed attempt: retried at `retry_at`, or failed for good when it is None."""
        values = {"attempts": webhook_deliveries.c.attempts + 1, "last_error": error[:500]}
        if retry_at is None:
            values["state"] = FAILED
        else:
            values["next_attempt_at"] = retry_at
        async with unavailable_on_outage("webhook record"), write_transaction(self._engine) as conn:
            await conn.execute(
                sa.update(webhook_deliveries).where(webhook_deliveries.c.id == delivery_id).values(values)
            )

    async def counts(self) -> dict[str, int]:
        """Deliveries by state (for tests and metrics)."""
        stmt = sa.select(webhook_deliveries.c.state, sa.func.count()).group_by(webhook_deliveries.c.state)
        async with unavailable_on_outage("webhook counts"), self._engine.connect() as conn:
            return {state: count for state, count in (await conn.execute(stmt)).all()}
