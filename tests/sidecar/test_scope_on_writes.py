"""Issue 12, bug 3: an agent's private turns never change what other agents see; jobs and contested
pairs are scoped like memories. Reproduced with four keys through HTTP and the real write pipeline."""

from __future__ import annotations

from tests.sidecar.four_keys import USER, Deployment, deployment_fixture  # noqa: F401 (the fixture)

MEETINGS = (
    "I prefer morning meetings.",
    "I prefer afternoon meetings.",
    "I prefer morning meetings.",
    "I prefer afternoon meetings.",
    "I prefer morning meetings.",
)


async def test_a_private_turn_never_supersedes_the_shared_belief(deployment: Deployment) -> None:
    await deployment.retain("keyA", "I always use dark mode.")
    await deployment.retain("keyAX", "I always use light mode.", private=True)

    seen_by_y = await deployment.recall("keyAY", "which theme do I use, dark or light mode?")
    seen_by_x = await deployment.recall("keyAX", "which theme do I use, dark or light mode?")

    assert any("dark mode" in text for text in seen_by_y)
    assert not any("light mode" in text for text in seen_by_y)
    assert any("light mode" in text for text in seen_by_x)  # X keeps its own private belief
    memories, _ = await deployment.store.list_memories(deployment.tenant_a, USER)
    assert sorted((m.value, m.visibility.value) for m in memories) == [("dark", "user"), ("light", "agent")]


async def test_a_shared_turn_never_merges_into_an_agents_private_memory(deployment: Deployment) -> None:
    await deployment.retain("keyAX", "I am allergic to shellfish.", private=True)
    shared_job = await deployment.retain("keyA", "I am allergic to shellfish.")

    seen_by_y = await deployment.recall("keyAY", "what am I allergic to?", include_sensitive=["health"])

    assert any("shellfish" in text for text in seen_by_y)
    memories, _ = await deployment.store.list_memories(deployment.tenant_a, USER)
    assert sorted((m.visibility.value, m.agent_id) for m in memories) == [("agent", "agentX"), ("user", None)]
    private = next(m for m in memories if m.visibility.value == "agent")
    assert len(private.source_turn_ids) == 1  # the shared turn did not cite itself on X's memory
    job = (await deployment.http.get(f"/v1/jobs/{shared_job}", headers=deployment.auth("keyAY"))).json()
    assert job["memory_ids"] != [private.id]


async def test_a_private_contradiction_loop_is_invisible_and_unresolvable_by_another_agent(
    deployment: Deployment,
) -> None:
    for text in MEETINGS:
        await deployment.retain("keyAX", text, private=True)
    query = {"user_id": USER, "status": "all"}

    by_x = (await deployment.http.get("/v1/contested", params=query, headers=deployment.auth("keyAX"))).json()
    by_y = await deployment.http.get("/v1/contested", params=query, headers=deployment.auth("keyAY"))
    by_tenant = (await deployment.http.get("/v1/contested", params=query, headers=deployment.auth("keyAagents"))).json()

    (slot,) = by_x["contested"]
    assert slot["agent_id"] == "agentX"
    assert by_y.status_code == 200 and by_y.json()["contested"] == []
    assert [s["id"] for s in by_tenant["contested"]] == [slot["id"]]  # a tenant key acts for its agents

    path = f"/v1/contested/{slot['id']}/resolve"
    refused = await deployment.http.post(path, json={"value": "morning"}, headers=deployment.auth("keyAY"))
    hidden = await deployment.http.post(path, json={"value": "morning"}, headers=deployment.auth("keyAYm"))
    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "forbidden")
    assert (hidden.status_code, hidden.json()["error"]["code"]) == (404, "not_found")
    not_granted = await deployment.http.post(path, json={"value": "morning"}, headers=deployment.auth("keyAX"))
    assert not_granted.status_code == 403  # resolving needs `manage`, which agent keys lack by default

    resolved = await deployment.http.post(path, json={"value": "morning"}, headers=deployment.auth("keyAagents"))
    assert resolved.status_code == 200, resolved.text
    (meta,) = resolved.json()["memories"]
    assert (meta["visibility"], meta["agent_id"]) == ("agent", "agentX")  # X's decision stays X's
    assert not any("meetings" in text for text in await deployment.recall("keyAY", "when do I like meetings?"))


async def test_a_shared_loop_is_not_fed_by_private_flips(deployment: Deployment) -> None:
    await deployment.retain("keyA", "I prefer morning meetings.")
    for text in MEETINGS[1:]:
        await deployment.retain("keyAX", text, private=True)
    await deployment.retain("keyA", "I prefer afternoon meetings.")  # one shared supersession: no loop

    slots = await deployment.store.list_contested(deployment.tenant_a, USER, status=None)

    assert [s.agent_id for s in slots] == ["agentX"]
    memories, _ = await deployment.store.list_memories(deployment.tenant_a, USER)
    shared = [m for m in memories if m.private_to is None]
    assert [m.value for m in shared] == ["afternoon"]


async def test_a_private_turns_job_is_only_its_agents(deployment: Deployment) -> None:
    job_id = await deployment.retain("keyAX", "I always use light mode.", private=True)

    answers = {
        key: await deployment.http.get(f"/v1/jobs/{job_id}", headers=deployment.auth(key))
        for key in ("keyAX", "keyAY", "keyAagents", "keyA", "keyB")
    }

    assert answers["keyAX"].status_code == 200 and answers["keyAX"].json()["memory_ids"]
    assert (answers["keyAY"].status_code, answers["keyAY"].json()["error"]["code"]) == (404, "not_found")
    assert answers["keyAagents"].status_code == 200  # a tenant key whose entry lists `agents`
    assert answers["keyA"].status_code == 404  # a tenant key's default rights act for no agent
    assert answers["keyB"].status_code == 404


async def test_consolidation_by_an_agent_never_touches_another_agents_private_memories(
    deployment: Deployment,
) -> None:
    for text in ("I love hiking in the Alps with my dog.", "I love long hikes in the Alps with my dog."):
        await deployment.retain("keyAX", text, private=True)
    body = {"user_id": USER, "topic": "personal", "similarity_threshold": 0.5, "dry_run": True}

    by_y = await deployment.http.post("/v1/consolidate", json=body, headers=deployment.auth("keyAYm"))
    by_tenant = await deployment.http.post("/v1/consolidate", json=body, headers=deployment.auth("keyAagents"))

    assert by_y.status_code == 200, by_y.text
    assert by_y.json()["scanned"] == 0 and by_y.json()["groups"] == []
    assert by_tenant.json()["scanned"] >= 2
