"""The audit of reads: one record per recall, to SQL (`recall_audit`) and the audit topic.

`AuditSink` is what the service needs; `AuditLog` batches records off the hot path, writes them
to the store (the durable copy) and then publishes what the store kept (keyed `tenant:user`) when a
producer is given: a record that would name a user erased since is neither (`beliefs.erasure`). A
failed publish is logged, not retried: the SQL row is the record of truth.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from beliefs.records import RecallAudit
from sidecar.recall.batching import BatchFlusher, BufferedRecorder
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
    def record(self, audit: RecallAudit) -> None:
        """Accept one record without blocking the recall."""

    async def start(self) -> None: ...

    async def flush(self) -> None: ...

    async def close(self) -> None: ...


class AuditLog(BufferedRecorder[RecallAudit]):
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
            "recall-audit", self._write, interval_s=interval_s, max_items=max_records
        )

    def record(self, audit: RecallAudit) -> None:
        self._flusher.add([audit])

    async def _write(self, records: list[RecallAudit]) -> None:
        kept = await self._store.write_audit(records)  # never a record naming a user erased since
        if self._producer is not None and kept:
            try:
                await self._producer.send_many(_out_records(self.topic, kept))
            except SinkError as exc:
                logger.warning("recall audit: %d records kept in SQL but not published: %s", len(records), exc)


def _out_records(topic: str, records: Sequence[RecallAudit]) -> list[OutRecord]:
    return [
        OutRecord(topic, f"{r.tenant_id}:{r.user_id}".encode(), r.model_dump_json().encode("utf-8"))
        for r in records
    ]
