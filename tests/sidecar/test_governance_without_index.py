"""Revocation and erasure write SQL only (the vector outbox carries the change to the index), so a
sidecar serves them whenever it has the SQL store, with no vector index of its own."""

from __future__ import annotations

from sinks.sql.vector_outbox import SqlVectorOutbox
from tests.sidecar.bodies import ACME
from tests.sidecar.conftest import make_memory, outcome_of


async def test_revoke_and_erase_are_served_without_a_vector_index(client, store) -> None:
    kept = make_memory("acme", "u-1", "t-1", "The user prefers vim.")
    dropped = make_memory("acme", "u-1", "t-2", "The user likes green tea.", attribute="likes_tea", value="green")
    await store.write([outcome_of(kept), outcome_of(dropped)])

    revoked = await client.post(f"/v1/memories/{dropped.id}/revoke", headers=ACME)
    assert revoked.status_code == 200, revoked.text
    assert revoked.json()["state"] == "revoked"
    owed = {p.memory.id: p.memory.state.value for p in await SqlVectorOutbox.of(store).pending_vectors()}
    assert owed[dropped.id] == "revoked"  # the projector of whichever process owns the index follows

    unknown = await client.post("/v1/episodes/no-such-episode/revoke", headers=ACME)
    assert unknown.status_code == 404 and "no-such-episode" in unknown.text  # the route's answer, not a missing route

    erased = await client.delete("/v1/users/u-1", headers=ACME)
    assert erased.status_code == 200, erased.text
    assert erased.json()["memories_deleted"] == 2 and erased.json()["receipt_id"]
    assert await store.get_memory("acme", kept.id) is None
