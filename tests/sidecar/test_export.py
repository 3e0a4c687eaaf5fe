"""`GET /v1/users/{user_id}/export`: JSON lines of the user's history, scoped by the key."""

from __future__ import annotations

import json

import httpx

from beliefs.records import Visibility
from sidecar.app import create_app
from streams.settings import Settings
from tests.sidecar.bodies import ACME, OTHER


async def seed(store, memory_factory, outcome_factory) -> None:
    vim = memory_factory("acme", "u-1", "t-1", "The user prefers vim.", value="vim")
    helix = memory_factory("acme", "u-1", "t-2", "The user prefers helix.", value="helix", minutes=5)
    private = memory_factory("acme", "u-1", "t-3", "The user likes tea.", attribute="likes", value="tea", minutes=10,
                             agent_id="bot", visibility=Visibility.AGENT)  # fmt: skip
    theirs = memory_factory("other", "u-1", "t-4", "The user prefers nano.", value="nano")
    await store.write([outcome_factory(vim), outcome_factory(helix), outcome_factory(private, "bot"),
                       outcome_factory(theirs)])  # fmt: skip


async def lines_of(client, headers, user: str = "u-1") -> list[dict]:
    response = await client.get(f"/v1/users/{user}/export", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/x-ndjson")
    assert response.text.endswith("\n")
    return [json.loads(line) for line in response.text.splitlines()]


async def test_the_export_carries_the_history_and_the_tenants_rows_only(client, store, memory_factory, outcome_factory):
    await seed(store, memory_factory, outcome_factory)

    records = await lines_of(client, ACME)

    assert records[0] == {"kind": "header", "format": "beliefstream-export", "version": 1}
    assert records[-1] == {"kind": "end", "records": len(records) - 2}
    memories = [r for r in records if r["kind"] == "memory"]
    assert [(m["value"], m["state"]) for m in memories] == [("vim", "superseded"), ("helix", "active"), ("tea", "active")]
    assert memories[0]["superseded_by"] == memories[1]["id"]
    assert {m["tenant_id"] for m in memories} == {"acme"}
    theirs = await lines_of(client, OTHER)
    assert [r["value"] for r in theirs if r["kind"] == "memory"] == ["nano"]


async def test_private_rows_go_only_to_keys_that_may_read_them(store, publisher, memory_factory, outcome_factory):
    await seed(store, memory_factory, outcome_factory)
    keys = "key-acme=acme/admin,key-bot=acme:bot,key-bot2=acme:bot2,key-plain=acme/recall"
    app = create_app(Settings(api_keys=keys), store, publisher)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sidecar") as client:
        values = {
            key: [r["value"] for r in await lines_of(client, {"Authorization": f"Bearer {key}"}) if r["kind"] == "memory"]
            for key in ("key-acme", "key-bot", "key-bot2", "key-plain")
        }
    assert values == {
        "key-acme": ["vim", "helix", "tea"],  # a tenant key with `agents` (admin): every agent's
        "key-bot": ["vim", "helix", "tea"],  # its own private memory
        "key-bot2": ["vim", "helix"],  # another agent's: left out
        "key-plain": ["vim", "helix"],  # a tenant key without `agents`: shared state only
    }


async def test_exporting_needs_the_recall_capability(store, publisher):
    app = create_app(Settings(api_keys="key-writer=acme/retain"), store, publisher)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sidecar") as client:
        response = await client.get("/v1/users/u-1/export", headers={"Authorization": "Bearer key-writer"})
    assert response.status_code == 403
    assert "recall" in response.text


async def test_an_unknown_user_is_the_header_alone_and_no_key_is_a_401(client):
    assert await lines_of(client, ACME, "nobody") == [
        {"kind": "header", "format": "beliefstream-export", "version": 1}, {"kind": "end", "records": 0}
    ]
    assert (await client.get("/v1/users/u-1/export")).status_code == 401
