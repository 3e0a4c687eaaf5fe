"""Issue 12, bug 8: erasure is complete (every row of the user, on both databases) and provable (a
deletion receipt is the one trace it leaves)."""

from __future__ import annotations

import sqlalchemy as sa

from beliefs.records import MemoryState
from sinks.base import VectorFilter
from sinks.sql.governance import USER_TABLES, user_digest
from sinks.sql.tables import erasure_receipts, memories, memory_embeddings, outbox
from tests.sidecar.four_keys import USER, Deployment, deployment_fixture  # noqa: F401 (the fixture)
from tests.sidecar.test_scope_on_writes import MEETINGS

EVERY_STATE = [state.value for state in MemoryState]


async def rows_of(deployment: Deployment, tenant: str, user: str) -> dict[str, int]:
    """How many rows of the user each table holds."""
    counts: dict[str, int] = {}
    async with deployment.store._engine.connect() as conn:
        for kind, table in {"memories": memories, **USER_TABLES}.items():
            stmt = sa.select(sa.func.count()).select_from(table).where(table.c.tenant_id == tenant, table.c.user_id == user)
            counts[kind] = (await conn.execute(stmt)).scalar_one()
        ids = sa.select(memories.c.id).where(memories.c.tenant_id == tenant, memories.c.user_id == user)
        embedded = sa.select(sa.func.count()).select_from(memory_embeddings).where(memory_embeddings.c.memory_id.in_(ids))
        counts["embeddings"] = (await conn.execute(embedded)).scalar_one()
        events = sa.select(sa.func.count()).select_from(outbox).where(outbox.c.key == f"{tenant}:{user}")
        counts["outbox_events"] = (await conn.execute(events)).scalar_one()
    return counts


async def points_of(deployment: Deployment, tenant: str, user: str, minilm) -> int:
    [query] = await minilm.aembed(["meetings"])
    scope = VectorFilter(tenant, user, states=EVERY_STATE, agent_ids=["agentX", "agentY"])
    return len(await deployment.vectors.search(query.tolist(), scope, limit=100))


async def test_erasure_leaves_nothing_of_the_user_but_a_receipt(deployment: Deployment, minilm) -> None:
    for text in MEETINGS:  # a contested pair with its value history
        await deployment.retain("keyAX", text, private=True)
    await deployment.retain("keyA", "I always use dark mode.")
    await deployment.retain("keyB", "I always use dark mode.")  # same user id, another tenant
    direct = {"user_id": USER, "text": "User likes tea.", "type": "preference", "topic": "food",
              "importance": 0.5, "confidence": 0.9}  # fmt: skip
    assert (await deployment.http.post("/v1/memories", json=direct, headers=deployment.auth("keyA"))).status_code == 201
    await deployment.recall("keyAX", "when do I like meetings?")
    await deployment.audit.flush()
    before = await rows_of(deployment, deployment.tenant_a, USER)
    assert min(before.values()) > 0, before  # every kind of row exists before: the test can fail
    await deployment.recall("keyAY", "which theme do I use?")  # its audit row still buffered
    before["recall_audit"] += 1

    response = await deployment.http.delete(f"/v1/users/{USER}", headers=deployment.auth("keyA"))
    await deployment.audit.flush()  # nothing of the user may land after the erasure

    assert response.status_code == 200, response.text
    receipt = response.json()
    assert {k: receipt["counts"][k] for k in before} == before
    assert receipt["counts"]["vector_points"] == before["memories"] + receipt["counts"].get("episodes", 0)
    assert await rows_of(deployment, deployment.tenant_a, USER) == dict.fromkeys(before, 0)
    assert await points_of(deployment, deployment.tenant_a, USER, minilm) == 0
    contested = await deployment.http.get(
        "/v1/contested", params={"user_id": USER, "status": "all"}, headers=deployment.auth("keyA")
    )
    assert contested.json()["contested"] == []
    async with deployment.store._engine.connect() as conn:
        kept = (await conn.execute(sa.select(erasure_receipts))).mappings().all()
    mine = [row for row in kept if row["tenant_id"] == deployment.tenant_a]
    assert [(r["id"], r["user_digest"], r["counts"]) for r in mine] == [
        (receipt["receipt_id"], user_digest(deployment.tenant_a, USER), receipt["counts"])
    ]
    assert USER not in str(dict(mine[0]))  # the receipt names the user only by digest
    other = await rows_of(deployment, deployment.tenant_b, USER)
    assert other["memories"] == 1 and other["jobs"] == 1  # another tenant's user of the same id is kept
