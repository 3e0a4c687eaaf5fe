"""Issue 25, item 9: erasure's edges. A user id no write could hold is refused before anything is
written (no receipt), and recalling an erased user leaves no new trace of them (no audit row, no
audit record published) unless they came back."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

import pytest
import sqlalchemy as sa
from recording_producer import RecordingProducer

from beliefs.records import RecallAudit, utcnow
from sidecar.recall.audit import AuditLog
from sinks.sql.store import SqlMemoryStore
from sinks.sql.tables import erasure_receipts, recall_audit
from tests.sidecar.four_keys import USER, Deployment, deployment_fixture  # noqa: F401 (the fixture)

UNHOLDABLE = {"10k characters": "u" * 10_000, "a NUL": "u%00x", "257 characters": "u" * 257}


async def _receipts(deployment: Deployment) -> int:
    async with deployment.store._engine.connect() as conn:
        stmt = sa.select(sa.func.count()).select_from(erasure_receipts).where(
            erasure_receipts.c.tenant_id == deployment.tenant_a
        )
        return (await conn.execute(stmt)).scalar_one()


async def _audit_rows(deployment: Deployment, user: str = USER) -> int:
    async with deployment.store._engine.connect() as conn:
        stmt = sa.select(sa.func.count()).select_from(recall_audit).where(
            recall_audit.c.tenant_id == deployment.tenant_a, recall_audit.c.user_id == user
        )
        return (await conn.execute(stmt)).scalar_one()


@pytest.mark.parametrize("name", UNHOLDABLE)
async def test_an_id_no_write_could_hold_is_refused_and_leaves_no_receipt(deployment: Deployment, name) -> None:
    user = UNHOLDABLE[name]
    retained = await deployment.http.post(
        "/v1/retain", json={"user_id": user.replace("%00", "\x00"), "role": "user", "text": "hi"},
        headers=deployment.auth("keyA"),
    )

    erased = await deployment.http.delete(f"/v1/users/{user}", headers=deployment.auth("keyA"))
    listed = await deployment.http.get(f"/v1/users/{user}/memories", headers=deployment.auth("keyA"))

    assert retained.status_code == 422  # the same bounds as a write
    assert erased.status_code == 422 and erased.json()["error"]["code"] == "invalid_request"
    assert listed.status_code == 422
    assert await _receipts(deployment) == 0


async def test_a_holdable_id_is_still_erased_with_a_receipt(deployment: Deployment) -> None:
    erased = await deployment.http.delete(f"/v1/users/{'u' * 256}", headers=deployment.auth("keyA"))

    assert erased.status_code == 200 and await _receipts(deployment) == 1


async def test_recalling_an_erased_user_leaves_no_trace_of_them_until_they_come_back(deployment: Deployment) -> None:
    await deployment.retain("keyA", "I always use dark mode.")
    assert await deployment.recall("keyA", "which theme do I use?")
    await deployment.http.delete(f"/v1/users/{USER}", headers=deployment.auth("keyA"))

    assert await deployment.recall("keyA", "which theme do I use?") == []
    await deployment.audit.flush()
    after_erasure = await _audit_rows(deployment)
    await deployment.retain("keyA", "I always use light mode.")  # the user comes back
    assert await deployment.recall("keyA", "which theme do I use?")
    await deployment.audit.flush()

    assert after_erasure == 0
    assert await _audit_rows(deployment) == 1


def _audit(tenant: str, user: str, at: datetime, memory_ids: list[str]) -> RecallAudit:
    return RecallAudit(
        id=uuid.uuid4().hex, tenant_id=tenant, user_id=user, at=at, query_digest="0" * 64, memory_ids=memory_ids
    )


async def test_an_audit_record_the_erasure_overtook_is_neither_written_nor_published(sql_url, tenant) -> None:
    store = SqlMemoryStore(sql_url)
    await store.setup()
    producer = RecordingProducer()
    audit = AuditLog(store, producer)
    try:
        before = utcnow()
        report = await store.erase_user(tenant, "gone")
        after = report.erased_at + timedelta(seconds=1)
        records = {
            "read before the erasure, flushed after": _audit(tenant, "gone", before, ["m1"]),
            "an empty recall after it": _audit(tenant, "gone", after, []),
            "the user came back": _audit(tenant, "gone", after, ["m2"]),
            "another user": _audit(tenant, "kept", before, []),
        }
        for record in records.values():
            await audit.write(record)
        await audit.flush()

        async with store._engine.connect() as conn:
            stmt = sa.select(recall_audit.c.id).where(recall_audit.c.tenant_id == tenant)
            rows = set((await conn.execute(stmt)).scalars())
        written = {name for name, r in records.items() if r.id in rows}
        published = {name for name, r in records.items() if any(r.id.encode() in o.value for o in producer.records)}
    finally:
        await audit.close()
        await store.close()

    assert written == published == {"the user came back", "another user"}
