"""Reading the belief state: pages of a user's memories, one memory with its history, tenant scope."""

from __future__ import annotations

from beliefs.records import Memory, Visibility

ACME = {"Authorization": "Bearer key-acme"}
OTHER = {"Authorization": "Bearer key-other"}
BOT = {"Authorization": "Bearer key-bot"}


async def write_editors(store, memory_factory, outcome_factory, count: int) -> list[Memory]:
    """`count` active memories of acme/u-1 on attributes that accumulate (no supersession)."""
    memories = [
        memory_factory(
            "acme",
            "u-1",
            f"t-{i}",
            f"The user uses tool {i}.",
            attribute="uses_tool",
            value=f"tool-{i}",
            minutes=i,
        )
        for i in range(count)
    ]
    await store.write([outcome_factory(memory) for memory in memories])
    return memories


async def test_list_pages_through_every_memory_once(client, store, memory_factory, outcome_factory):
    written = await write_editors(store, memory_factory, outcome_factory, 5)

    seen: list[dict] = []
    cursor = None
    pages = 0
    while True:
        params = {"limit": 2} | ({"cursor": cursor} if cursor else {})
        response = await client.get("/v1/users/u-1/memories", params=params, headers=ACME)
        assert response.status_code == 200
        body = response.json()
        assert len(body["memories"]) <= 2
        seen.extend(body["memories"])
        pages += 1
        cursor = body["next_cursor"]
        if cursor is None:
            break

    assert pages == 3
    assert sorted(m["id"] for m in seen) == sorted(m.id for m in written)
    record = next(m for m in seen if m["id"] == written[0].id)
    assert Memory.model_validate(record) == written[0]  # the full contract §2 record, as JSON


async def test_list_filters_by_state(client, store, memory_factory, outcome_factory):
    old = memory_factory("acme", "u-1", "t-1", "The user prefers vim.", value="vim")
    new = memory_factory("acme", "u-1", "t-2", "The user prefers helix.", value="helix", minutes=5)
    await store.write([outcome_factory(old)])
    await store.write([outcome_factory(new)])

    async def ids(state: str | None) -> set[str]:
        params = {} if state is None else {"state": state}
        response = await client.get("/v1/users/u-1/memories", params=params, headers=ACME)
        assert response.status_code == 200
        return {m["id"] for m in response.json()["memories"]}

    assert await ids(None) == await ids("active") == {new.id}
    assert await ids("superseded") == {old.id}
    assert await ids("all") == {old.id, new.id}
    assert await ids("revoked") == set()


async def test_invalid_state_is_400_naming_the_choices(client):
    response = await client.get("/v1/users/u-1/memories", params={"state": "current"}, headers=ACME)

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "bad_request"
    assert "active" in error["message"] and "all" in error["message"]


async def test_limit_must_be_between_1_and_1000(client):
    for limit, status in [(0, 422), (1001, 422), ("many", 422), (1, 200), (1000, 200)]:
        response = await client.get("/v1/users/u-1/memories", params={"limit": limit}, headers=ACME)
        assert response.status_code == status, limit
        if status != 200:
            assert "limit" in response.json()["error"]["message"]


async def test_list_is_scoped_to_the_key_tenant(client, store, memory_factory, outcome_factory):
    await write_editors(store, memory_factory, outcome_factory, 2)

    response = await client.get("/v1/users/u-1/memories", headers=OTHER)

    assert response.status_code == 200
    assert response.json() == {"memories": [], "next_cursor": None}


async def test_memory_with_its_supersession_history(client, store, memory_factory, outcome_factory):
    old = memory_factory("acme", "u-1", "t-1", "The user prefers vim.", value="vim")
    new = memory_factory("acme", "u-1", "t-2", "The user prefers helix.", value="helix", minutes=5)
    await store.write([outcome_factory(old)])
    await store.write([outcome_factory(new)])

    response = await client.get(f"/v1/memories/{new.id}", headers=ACME)

    assert response.status_code == 200
    body = response.json()
    assert (body["id"], body["state"], body["text"]) == (new.id, "active", "The user prefers helix.")
    assert [m["id"] for m in body["history"]] == [old.id, new.id]
    assert body["history"][0]["state"] == "superseded"
    assert body["history"][0]["superseded_by"] == new.id

    superseded = await client.get(f"/v1/memories/{old.id}", headers=ACME)
    assert superseded.json()["state"] == "superseded"
    assert [m["id"] for m in superseded.json()["history"]] == [old.id, new.id]


async def test_memory_of_another_tenant_is_404(client, store, memory_factory, outcome_factory):
    [memory] = await write_editors(store, memory_factory, outcome_factory, 1)

    foreign = await client.get(f"/v1/memories/{memory.id}", headers=OTHER)
    missing = await client.get("/v1/memories/no-such-memory", headers=ACME)

    assert foreign.status_code == missing.status_code == 404
    assert foreign.json()["error"]["code"] == "not_found"


async def test_agent_bound_key_does_not_see_another_agents_private_memory(
    client, store, memory_factory, outcome_factory
):
    private = memory_factory(
        "acme",
        "u-1",
        "t-1",
        "Draft reply is in progress.",
        attribute="decision",
        value="draft",
        agent_id="other-bot",
        visibility=Visibility.AGENT,
    )
    shared = memory_factory("acme", "u-1", "t-2", "The user uses git.", attribute="uses_tool", value="git")
    await store.write([outcome_factory(private, agent_id="other-bot"), outcome_factory(shared)])

    listed = await client.get("/v1/users/u-1/memories", headers=BOT)
    hidden = await client.get(f"/v1/memories/{private.id}", headers=BOT)
    unbound = await client.get(f"/v1/memories/{private.id}", headers=ACME)

    assert {m["id"] for m in listed.json()["memories"]} == {shared.id}
    assert hidden.status_code == 404
    assert unbound.status_code == 200


async def test_a_cursor_not_from_the_listing_is_400(client):
    response = await client.get("/v1/users/u-1/memories", params={"cursor": "not-a-cursor"}, headers=ACME)

    assert response.status_code == 400
    assert "cursor" in response.json()["error"]["message"]
