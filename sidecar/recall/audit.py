"""The audit of reads: one record per recall, to SQL (`recall_audit`) and the audit topic.

`AuditSink` is what the service needs. `AuditLog.write` stores the record before the recall
answers (`BatchFlusher.add_durably`: concurrent recalls share one transaction), so a crash never
loses the audit of an answer that left; a store that cannot take it fails the recall (503) rather
than answer unaudited. What the store kept is then published (keyed `tenant:user`) from a buffer
in the background when a producer is given; a record that would name a user erased since is
neither stored nor published (`beliefs.erasure`). A failed publish is logged, not retried: the SQL
row is the record of truth. Each record carries what was returned, with scores and reasons, and
what was withheld and why (`beliefs.records.RecallAudit`).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from beliefs.records import RecallAudit
from sidecar.recall.batching import BatchFlusher
from sinks.errors import SinkError
from sinks.producer import OutRecord, RecordProducer
from sinks.recall import RecallStore

logger = logging.getLogger(__name__)

DEFAULT_TOPIC = "beliefstream.recall.audit"


def query_digest(query: str) -> str:
    """sha256 of the query: equal queries are linkable in the audit, the text is not stored."""
    return hashlib.sha256(query.encode("utf-8")).hexdigest()


@runtime_checkable
class AuditSink(Protocol):
    async def write(self, audit: RecallAudit) -> None:
        """Store one record durably; return only once it is stored (the recall answers after)."""

    async def start(self) -> None: ...

    async def flush(self) -> None: ...

    async def close(self) -> None: ...


class AuditLog:
    def __init__(
        self,
        store: RecallStore,
        producer: RecordProducer | None = None,
        topic: str = DEFAULT_TOPIC,
        *,
        interval_s: float = 1.0,
        max_records: int = 500,
    ) -> None:
        self._store = store
        self._producer = producer
        self.topic = topic
        self._flusher: BatchFlusher[RecallAudit] = BatchFlusher(
            "recall-audit", self._store_records, interval_s=interval_s, max_items=max_records
        )
        self._publisher: BatchFlusher[RecallAudit] = BatchFlusher(
            "recall-audit-publish", self._publish, interval_s=interval_s, max_items=max_records
        )

    async def write(self, audit: RecallAudit) -> None:
        await self._flusher.add_durably([audit])

    async def start(self) -> None:
        await self._flusher.start()
        await self._publisher.start()

    async def flush(self) -> None:
        await self._flusher.flush()
        await self._publisher.flush()

    async def close(self) -> None:
        await self._flusher.close()
        await self._publisher.close()

    async def _store_records(self, records: list[RecallAudit]) -> None:
        kept = await self._store.write_audit(records)  # never a record naming a user erased since
        if self._producer is not None and kept:
            self._publisher.add(kept)

    async def _publish(self, records: list[RecallAudit]) -> None:
        if self._producer is None:
            return
        try:
            await self._producer.send_many(_out_records(self.topic, records))
        except SinkError as exc:
            logger.warning("recall audit: %d records kept in SQL but not published: %s", len(records), exc)


def _out_records(topic: str, records: Sequence[RecallAudit]) -> list[OutRecord]:
    return [
        OutRecord(topic, f"{r.tenant_id}:{r.user_id}".encode(), r.model_dump_json().encode("utf-8"))
        for r in records
    ]
