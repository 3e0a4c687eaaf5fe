"""`POST /v1/memories/{id}/revoke`: never recalled again, tenant-scoped, idempotent, one event."""

from __future__ import annotations

import asyncio
import json
import time

import sqlalchemy as sa

from beliefs.records import MemoryState
from sinks.sql.tables import outbox
from sinks.sql.vector_outbox import SqlVectorOutbox
from tests.sidecar.bodies import ACME, BOT, BOT_MANAGER, OTHER, active_hits, editor


async def revoked_events(store) -> list[dict]:
    async with store._engine.connect() as conn:
        values = (await conn.execute(sa.select(outbox.c.value).order_by(outbox.c.seq))).scalars().all()
    return [event for event in map(json.loads, map(bytes, values)) if event["kind"] == "revoked"]


async def projected_away(edge_vectors, minilm, query: str, timeout: float = 15.0) -> list[str]:
    """The active hits once the projector has caught up: the route waits for it only so long, and a
    loaded machine can take longer."""
    deadline = time.monotonic() + timeout
    while (hits := await active_hits(edge_vectors, minilm, query)) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    return hits


async def stored(governed, **fields) -> dict:
    response = await governed.post("/v1/memories", json=editor(**fields), headers=ACME)
    assert response.status_code == 201, response.text
    return response.json()


async def test_revoke_answers_the_revoked_memory_and_recall_loses_it(governed, store, edge_vectors, minilm):
    memory = await stored(governed)
    query = "which editor does the user like?"
    assert await active_hits(edge_vectors, minilm, query) == [memory["id"]]

    response = await governed.post(f"/v1/memories/{memory['id']}/revoke", headers=ACME)

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["id"] == memory["id"] and body["state"] == "revoked"
    assert body["revoked_at"] is not None and body["valid_until"] == body["revoked_at"]
    assert await projected_away(edge_vectors, minilm, query) == []
    assert await active_hits(edge_vectors, minilm, query, states=[MemoryState.REVOKED]) == [memory["id"]]
    listed = await governed.get("/v1/users/u-1/memories", headers=ACME)
    assert listed.json()["memories"] == []
    [event] = await revoked_events(store)
    assert (event["memory_id"], event["tenant_id"], event["user_id"]) == (memory["id"], "acme", "u-1")
    assert not [p for p in await SqlVectorOutbox.of(store).pending_vectors() if p.memory.id == memory["id"]]


async def test_revoking_twice_answers_the_same_and_writes_one_event(governed, store):
    memory = await stored(governed)

    first = await governed.post(f"/v1/memories/{memory['id']}/revoke", headers=ACME)
    second = await governed.post(f"/v1/memories/{memory['id']}/revoke", headers=ACME)

    assert (first.status_code, second.status_code) == (200, 200)
    assert second.json() == first.json()
    assert len(await revoked_events(store)) == 1


async def test_another_tenant_or_an_unknown_id_is_404(governed, store):
    memory = await stored(governed)

    foreign = await governed.post(f"/v1/memories/{memory['id']}/revoke", headers=OTHER)
    unknown = await governed.post("/v1/memories/no-such-id/revoke", headers=ACME)

    assert (foreign.status_code, foreign.json()["error"]["code"]) == (404, "not_found")
    assert unknown.status_code == 404
    assert (await store.get_memory("acme", memory["id"])).state is MemoryState.ACTIVE
    assert await revoked_events(store) == []


async def test_an_agent_key_revokes_what_it_sees_but_not_another_agents_private_memory(governed, store):
    shared = await stored(governed)
    private = (
        await governed.post(
            "/v1/memories",
            json=editor("helix", agent_id="other-bot", visibility="agent", user_id="u-2"),
            headers=ACME,
        )
    ).json()

    hidden = await governed.post(f"/v1/memories/{private['id']}/revoke", headers=BOT_MANAGER)
    refused = await governed.post(f"/v1/memories/{shared['id']}/revoke", headers=BOT)
    allowed = await governed.post(f"/v1/memories/{shared['id']}/revoke", headers=BOT_MANAGER)

    assert hidden.status_code == 404
    assert (await store.get_memory("acme", private["id"])).state is MemoryState.ACTIVE
    assert refused.status_code == 403  # a shared memory: revoking it needs `manage`
    assert allowed.status_code == 200


async def test_a_revoked_value_said_again_is_a_new_memory_not_a_resurrection(governed, store):
    memory = await stored(governed, memory_key="k-1")
    await governed.post(f"/v1/memories/{memory['id']}/revoke", headers=ACME)

    again = await governed.post("/v1/memories", json=editor(memory_key="k-2"), headers=ACME)

    assert again.status_code == 201
    assert again.json()["id"] != memory["id"]
    assert (await store.get_memory("acme", memory["id"])).state is MemoryState.REVOKED


async def test_without_a_vector_index_revoke_is_not_mounted(client):
    response = await client.post("/v1/memories/x/revoke", headers=ACME)

    assert response.status_code in (404, 405)
