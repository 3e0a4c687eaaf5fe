"""`PATCH /v1/memories/{id}`, `GET /v1/users` and attribute history over the real store, a real Qdrant
Edge index and the real embedder."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx
import pytest
import sqlalchemy as sa

from beliefs.records import MemoryState, Trust
from sidecar.app import create_app
from sinks.sql.admin import AdminStore
from sinks.sql.tables import outbox
from sinks.sql.vector_outbox import SqlVectorOutbox
from tests.sidecar.bodies import ACME, BOT, BOT_MANAGER, OTHER, active_hits, editor


@pytest.fixture
async def admin_http(settings, store, publisher, edge_vectors, minilm, projector) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(
        settings,
        store,
        publisher,
        edge_vectors,
        embedder=minilm,
        admin=AdminStore.of(store),
        contested=store,
        projector=projector,
    )
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sidecar") as http:
        yield http


async def _events(store) -> list[dict]:
    async with store._engine.connect() as conn:
        values = (await conn.execute(sa.select(outbox.c.value).order_by(outbox.c.seq))).scalars().all()
    return [json.loads(bytes(value)) for value in values]


async def test_an_edit_is_a_new_version_that_supersedes_the_old(admin_http, store, edge_vectors, minilm):
    old = (await admin_http.post("/v1/memories", json=editor("vim"), headers=ACME)).json()

    body = {"text": "The user prefers helix as their editor.", "value": "helix", "confidence": 0.95}
    response = await admin_http.patch(f"/v1/memories/{old['id']}", json=body, headers=ACME)

    assert response.status_code == 200, response.text
    new = response.json()
    assert new["id"] != old["id"] and (new["value"], new["confidence"], new["state"]) == ("helix", 0.95, "active")
    assert (new["importance"], new["topic"], new["source_role"]) == (old["importance"], "tech", old["source_role"])
    assert [m["id"] for m in new["history"]] == [old["id"], new["id"]]  # the old version stays in the history
    closed = await store.get_memory("acme", old["id"])
    assert closed.state is MemoryState.SUPERSEDED and closed.superseded_by == new["id"]
    assert closed.value == "vim"
    # audited: the supersession and the edit, after the original creation
    assert [(e["kind"], e["memory_id"]) for e in await _events(store)] == [
        ("created", old["id"]), ("superseded", old["id"]), ("edited", new["id"])
    ]
    # the vectors follow: the new text is found, the old point is no longer active
    assert await active_hits(edge_vectors, minilm, "which editor does the user like?") == [new["id"]]
    assert not [p for p in await SqlVectorOutbox.of(store).pending_vectors() if p.memory.id in (old["id"], new["id"])]


async def test_a_retried_edit_answers_the_same_version_and_writes_nothing_more(admin_http, store):
    old = (await admin_http.post("/v1/memories", json=editor("vim"), headers=ACME)).json()
    first = await admin_http.patch(f"/v1/memories/{old['id']}", json={"importance": 0.2}, headers=ACME)
    again = await admin_http.patch(f"/v1/memories/{old['id']}", json={"importance": 0.2}, headers=ACME)
    assert first.status_code == again.status_code == 200
    assert first.json()["id"] == again.json()["id"]
    assert len(await _events(store)) == 3


async def test_an_old_version_cannot_be_edited_and_says_which_is_current(admin_http):
    old = (await admin_http.post("/v1/memories", json=editor("vim"), headers=ACME)).json()
    new = (await admin_http.patch(f"/v1/memories/{old['id']}", json={"topic": "work"}, headers=ACME)).json()
    response = await admin_http.patch(f"/v1/memories/{old['id']}", json={"topic": "personal"}, headers=ACME)
    assert response.status_code == 409
    assert new["id"] in response.json()["error"]["message"]


async def test_an_edit_keeps_provenance_and_trust_whatever_the_confidence(admin_http, store):
    body = editor("emacs", source_role="assistant", confidence=0.5)
    old = (await admin_http.post("/v1/memories", json=body, headers=ACME)).json()
    assert old["trust"] != Trust.TRUSTED.value
    new = (await admin_http.patch(f"/v1/memories/{old['id']}", json={"confidence": 1.0}, headers=ACME)).json()
    assert (new["trust"], new["source_role"]) == (old["trust"], "assistant")


@pytest.mark.parametrize(
    ("body", "status"),
    [({}, 422), ({"state": "active"}, 422), ({"user_id": "u-2"}, 422), ({"importance": 2}, 422),
     ({"text": "  "}, 422), ({"value": "helix"}, 422)],
)
async def test_bad_edits_are_refused_with_a_message(admin_http, body, status):
    old = (await admin_http.post("/v1/memories", json=editor(), headers=ACME)).json()
    response = await admin_http.patch(f"/v1/memories/{old['id']}", json=body, headers=ACME)
    assert response.status_code == status and response.json()["error"]["message"]


async def test_edits_stay_in_scope(admin_http):
    old = (await admin_http.post("/v1/memories", json=editor(), headers=ACME)).json()
    assert (await admin_http.patch(f"/v1/memories/{old['id']}", json={"topic": "x"}, headers=OTHER)).status_code == 404
    assert (await admin_http.patch(f"/v1/memories/{old['id']}", json={"topic": "x"}, headers=BOT)).status_code == 403
    assert (await admin_http.patch("/v1/memories/nope", json={"topic": "x"}, headers=ACME)).status_code == 404


async def test_users_are_listed_with_counts_by_state_a_page_at_a_time(admin_http):
    for user in ("u-b", "u-a", "u-c"):
        await admin_http.post("/v1/memories", json=editor("vim", user_id=user), headers=ACME)
    await admin_http.post("/v1/memories", json=editor("helix", user_id="u-a"), headers=ACME)  # supersedes
    await admin_http.post("/v1/memories", json=editor("vim", user_id="u-z"), headers=OTHER)

    first = (await admin_http.get("/v1/users", params={"limit": 2}, headers=ACME)).json()
    assert [u["user_id"] for u in first["users"]] == ["u-a", "u-b"]
    u_a = first["users"][0]
    assert u_a["memories"]["active"] == 1 and u_a["memories"]["superseded"] == 1 and u_a["total"] == 2
    assert u_a["memories"]["revoked"] == 0 and u_a["last_memory_at"]
    second = (await admin_http.get("/v1/users", params={"limit": 2, "cursor": first["next_cursor"]},
                                   headers=ACME)).json()
    assert [u["user_id"] for u in second["users"]] == ["u-c"] and second["next_cursor"] is None
    assert (await admin_http.get("/v1/users", headers=BOT)).status_code == 403
    bad = await admin_http.get("/v1/users", params={"cursor": "%%%"}, headers=ACME)
    assert bad.status_code == 400


async def test_the_history_of_an_attribute_lists_every_value_and_the_current_one(admin_http):
    vim = (await admin_http.post("/v1/memories", json=editor("vim"), headers=ACME)).json()
    helix = (await admin_http.post("/v1/memories", json=editor("helix"), headers=ACME)).json()
    zed = (await admin_http.patch(f"/v1/memories/{helix['id']}", json={"value": "zed", "text": "The user prefers zed."},
                                  headers=ACME)).json()
    answer = (await admin_http.get("/v1/users/u-1/attributes/preferred_editor/history", headers=ACME)).json()
    assert [(v["value"], v["state"]) for v in answer["history"]] == [
        ("vim", "superseded"), ("helix", "superseded"), ("zed", "active")
    ]
    assert answer["history"][0]["superseded_by"] == helix["id"] and answer["history"][1]["superseded_by"] == zed["id"]
    assert [v["memory_id"] for v in answer["current"]] == [zed["id"]]
    assert vim["id"] == answer["history"][0]["memory_id"]
    other = (await admin_http.get("/v1/users/u-1/attributes/preferred_editor/history", headers=OTHER)).json()
    assert other["history"] == [] and other["current"] == []


async def test_editing_a_memory_the_key_does_not_own_needs_manage(admin_http):
    """An agent key may correct its own private memory with its default rights, but a memory shared
    with the user's other agents only with `manage` (like revocation)."""
    private = (await admin_http.post("/v1/memories", json=editor("vim", visibility="agent"), headers=BOT_MANAGER)).json()
    shared = (await admin_http.post("/v1/memories", json=editor("emacs", user_id="u-2"), headers=BOT_MANAGER)).json()
    body = {"text": "The user prefers helix as their editor.", "value": "helix"}

    own = await admin_http.patch(f"/v1/memories/{private['id']}", json=body, headers=BOT)
    refused = await admin_http.patch(f"/v1/memories/{shared['id']}", json=body, headers=BOT)
    allowed = await admin_http.patch(f"/v1/memories/{shared['id']}", json=body, headers=BOT_MANAGER)

    assert own.status_code == 200, own.text
    assert refused.status_code == 403 and "manage" in refused.text
    assert allowed.status_code == 200, allowed.text
