"""Recall records its reads, end to end (real SQL store, Qdrant Edge, the real embedder): access
counts buffered off the hot path, and the audit of every answer (what was returned with its score
and why, what was withheld and why) stored before the answer leaves, or no answer."""

from __future__ import annotations

import hashlib
import json

import pytest
import sqlalchemy as sa
from recording_producer import RecordingProducer

from sidecar.auth import Principal
from sidecar.recall.audit import AuditLog
from sidecar.recall.models import RecallRequest
from sidecar.recall.service import RecallService
from sinks.errors import SinkUnavailableError
from sinks.recall import Currency, RecallScope
from sinks.sql.tables import recall_audit
from tests.sidecar.recall.seeding import NOW, mem


async def test_access_and_audit_recorded(world, tenant) -> None:
    producer = RecordingProducer()
    audit = AuditLog(world.store, producer, topic="test.recall.audit")
    service = RecallService(
        world.store, world.index, world.embedder, audit=audit, access_recorder=world.access, clock=lambda: NOW
    )
    target = mem(tenant, "u1", "The user's secret hobby is origami.")
    await world.seed(target)
    query = "what is the user's hobby"
    principal = Principal(tenant, "bot", key_id="fp-1")
    answers = [await service.recall(principal, RecallRequest(user_id="u1", query=query)) for _ in range(2)]
    assert world.access._flusher.pending == 2  # access counts are not written on the hot path

    async with world.store._engine.connect() as conn:  # the audit is: stored before each answer left
        rows = (
            (await conn.execute(sa.select(recall_audit).where(recall_audit.c.tenant_id == tenant)))
            .mappings()
            .all()
        )
    assert len(rows) == 2
    returned = answers[0].memories[0]
    assert rows[0]["returned"] == [
        {"id": target.id, "kind": "memory", "score": returned.score, "reason": returned.recall_reason}
    ]  # what was returned, with its score and why
    await service.flush()

    [stored] = await world.store.hydrate(RecallScope(tenant, "u1"), Currency(NOW, 0.4), [target.id])
    assert stored.access_count == 2 and stored.last_accessed == NOW
    digest = hashlib.sha256(query.encode()).hexdigest()
    assert {(r["user_id"], r["agent_id"], r["key_id"], r["query_digest"]) for r in rows} == {
        ("u1", "bot", "fp-1", digest)
    }
    assert all(r["memory_ids"] == [target.id] for r in rows)
    assert [r.topic for r in producer.records] == ["test.recall.audit"] * 2
    published = json.loads(producer.records[0].value)
    assert published["memory_ids"] == [target.id] and query not in producer.records[0].value.decode()
    assert producer.records[0].key == f"{tenant}:u1".encode()


async def test_the_audit_keeps_what_was_withheld_and_why(world, tenant) -> None:
    audit = AuditLog(world.store)
    service = RecallService(world.store, world.index, world.embedder, audit=audit, clock=lambda: NOW)
    hobby = mem(tenant, "u1", "The user's secret hobby is origami.")
    trivial = mem(tenant, "u1", "The user had soup on a Tuesday.", importance=0.2)
    await world.seed(hobby, trivial)

    await service.recall(Principal(tenant, None, key_id="fp"), RecallRequest(user_id="u1", query="what is my hobby"))

    async with world.store._engine.connect() as conn:
        [row] = (await conn.execute(sa.select(recall_audit).where(recall_audit.c.tenant_id == tenant))).mappings().all()
    assert [item["id"] for item in row["returned"]] == [hobby.id]
    assert {item["id"]: item["why"] for item in row["withheld"]}.get(trivial.id, "").startswith("below the similarity floor")


async def test_an_answer_never_leaves_when_its_audit_cannot_be_stored(world, tenant) -> None:
    """The audit is written before the answer: a store that refuses it fails the recall (503 over
    HTTP), so no answer leaves unaudited; a crash after the answer loses no record."""

    class RefusingStore:
        def __getattr__(self, name):
            return getattr(world.store, name)

        async def write_audit(self, records):
            raise SinkUnavailableError("write_audit: database is locked")

    service = RecallService(world.store, world.index, world.embedder, audit=AuditLog(RefusingStore()), clock=lambda: NOW)
    await world.seed(mem(tenant, "u1", "The user's secret hobby is origami."))

    with pytest.raises(SinkUnavailableError):
        await service.recall(Principal(tenant, None, key_id="fp"), RecallRequest(user_id="u1", query="my hobby"))
