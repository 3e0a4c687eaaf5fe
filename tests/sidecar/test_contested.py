"""`GET /v1/contested` and `POST /v1/contested/{id}/resolve` over the real store, index and embedder."""

from __future__ import annotations

import pytest

from beliefs.records import MemoryState
from sinks.sql.vector_outbox import SqlVectorOutbox
from tests.sidecar.bodies import ACME, OTHER, active_hits, editor
from tests.sidecar.conftest import make_memory, outcome_of


@pytest.fixture
async def loop(store) -> str:
    """acme's u-1 flipped editors vim → helix → vim → helix within minutes: a contested pair."""
    for minute, value in enumerate(["vim", "helix", "vim", "helix"]):
        memory = make_memory("acme", "u-1", f"t-{minute}", f"The user prefers {value}.", value=value, minutes=minute)
        await store.write([outcome_of(memory)])
    (slot,) = await store.list_contested("acme", "u-1")
    return slot.id


async def test_list_shows_open_loops_of_the_keys_tenant_with_their_history(governed, loop):
    response = await governed.get("/v1/contested", params={"user_id": "u-1"}, headers=ACME)

    assert response.status_code == 200, response.text
    (slot,) = response.json()["contested"]
    assert (slot["id"], slot["status"], slot["attribute"]) == (loop, "open", "preferred_editor")
    assert [e["value"] for e in slot["value_history"]] == ["vim", "helix", "vim", "helix"]
    other = await governed.get("/v1/contested", headers=OTHER)
    assert other.json() == {"contested": []}
    resolved = await governed.get("/v1/contested", params={"status": "resolved"}, headers=ACME)
    assert resolved.json() == {"contested": []}


async def test_resolve_by_context_stores_indexed_meta_memories(governed, store, edge_vectors, minilm, loop):
    body = {"by_context": {"work": "vim"}, "default": "helix"}
    response = await governed.post(f"/v1/contested/{loop}/resolve", json=body, headers=ACME)

    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["contested"]["status"] == "resolved"
    assert answer["contested"]["resolution"]["by_context"] == {"work": "vim"}
    metas = {m["context"]: m for m in answer["memories"]}
    assert (metas[None]["value"], metas["work"]["value"]) == ("helix", "vim")
    assert all(m["importance"] == 0.95 and m["confidence"] == 0.95 for m in metas.values())
    active, _ = await store.list_memories("acme", "u-1")
    assert {m.id for m in active} == {m["id"] for m in metas.values()}
    contested, _ = await store.list_memories("acme", "u-1", state=MemoryState.CONTESTED)
    assert contested == []
    hits = await active_hits(edge_vectors, minilm, "which editor does the user prefer?")
    assert set(hits) == {m["id"] for m in metas.values()}
    assert not [p for p in await SqlVectorOutbox.of(store).pending_vectors() if p.memory.id in set(hits)]

    again = await governed.post(f"/v1/contested/{loop}/resolve", json={"value": "vim"}, headers=ACME)
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "conflict"


async def test_resolve_is_scoped_to_the_keys_tenant(governed, loop):
    response = await governed.post(f"/v1/contested/{loop}/resolve", json={"value": "vim"}, headers=OTHER)
    assert response.status_code == 404
    missing = await governed.post("/v1/contested/nope/resolve", json={"value": "vim"}, headers=ACME)
    assert missing.status_code == 404


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"value": "vim", "by_context": {"work": "vim"}},
        {"value": "vim", "default": "helix"},
        {"by_context": {}},
        {"value": ""},
        {"value": "vim", "extra": 1},
    ],
)
async def test_resolve_needs_exactly_one_answer(governed, loop, body):
    response = await governed.post(f"/v1/contested/{loop}/resolve", json=body, headers=ACME)
    assert 400 <= response.status_code < 500 and response.status_code not in (404, 409)
    assert "error" in response.json()


async def test_unauthenticated_calls_are_refused(governed):
    assert (await governed.get("/v1/contested")).status_code == 401


async def test_a_direct_insert_on_an_open_loop_is_stored_contested(governed, store, loop):
    response = await governed.post("/v1/memories", json=editor("emacs"), headers=ACME)

    assert response.status_code == 201, response.text
    assert response.json()["state"] == "contested"
    (slot,) = await store.list_contested("acme", "u-1")
    assert slot.value_history[-1]["value"] == "emacs"
