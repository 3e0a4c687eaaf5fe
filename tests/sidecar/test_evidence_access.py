"""Issue 25, items 1 and 2: the evidence routes (episodes) and attribute history follow the memory
routes' rules, reproduced as the issue tried them: through HTTP and the real write pipeline, with
keys of one capability, agent keys with and without `manage`, and a tenant key without `agents`."""

from __future__ import annotations

from tests.sidecar.four_keys import USER, Deployment, deployment_fixture  # noqa: F401 (the fixture)


async def _episode(deployment: Deployment, key: str, text: str, *, private: bool = False) -> str:
    job_id = await deployment.retain(key, text, private=private)
    job = (await deployment.http.get(f"/v1/jobs/{job_id}", headers=deployment.auth("keyAdmin"))).json()
    return job["episode_id"]


async def _codes(deployment: Deployment, key: str, episode_id: str) -> tuple[int, int, int, int]:
    """(list, read, history, revoke) status codes for `key`."""
    auth = deployment.auth(key)
    listed = await deployment.http.get(f"/v1/users/{USER}/episodes", headers=auth)
    read = await deployment.http.get(f"/v1/episodes/{episode_id}", headers=auth)
    history = await deployment.http.get(f"/v1/users/{USER}/attributes/preferred_theme/history", headers=auth)
    revoke = await deployment.http.post(f"/v1/episodes/{episode_id}/revoke", headers=auth)
    return listed.status_code, read.status_code, history.status_code, revoke.status_code


async def test_evidence_and_history_need_recall_like_the_memory_routes(deployment: Deployment) -> None:
    shared = await _episode(deployment, "keyA", "I always use dark mode.")

    by_retain_only = await _codes(deployment, "keyAret", shared)
    memory_reads_by_retain_only = (
        await deployment.http.get(f"/v1/users/{USER}/memories", headers=deployment.auth("keyAret"))
    ).status_code

    assert memory_reads_by_retain_only == 403
    assert by_retain_only == (403, 403, 403, 403)
    episode = await deployment.store.get_episode(deployment.tenant_a, shared)
    assert episode is not None and episode.state.value == "active"


async def test_revoking_an_episode_needs_manage_unless_it_is_the_agents_own_private_one(
    deployment: Deployment,
) -> None:
    shared = await _episode(deployment, "keyA", "I always use dark mode.")
    own = await _episode(deployment, "keyAX", "I always use light mode.", private=True)

    by_recall_only = await deployment.http.post(f"/v1/episodes/{shared}/revoke", headers=deployment.auth("keyArec"))
    by_agent = await deployment.http.post(f"/v1/episodes/{shared}/revoke", headers=deployment.auth("keyAX"))
    own_by_agent = await deployment.http.post(f"/v1/episodes/{own}/revoke", headers=deployment.auth("keyAX"))
    by_agent_manager = await deployment.http.post(f"/v1/episodes/{shared}/revoke", headers=deployment.auth("keyAYm"))

    assert [r.status_code for r in (by_recall_only, by_agent)] == [403, 403]
    assert own_by_agent.status_code == 200 and own_by_agent.json()["state"] == "revoked"
    assert by_agent_manager.status_code == 200 and by_agent_manager.json()["state"] == "revoked"


async def test_another_agents_private_episode_is_out_of_reach_of_a_tenant_key_without_agents(
    deployment: Deployment,
) -> None:
    shared = await _episode(deployment, "keyA", "I always use dark mode.")
    private = await _episode(deployment, "keyAX", "I always use light mode.", private=True)
    auth = deployment.auth("keyAshared")

    first_page = await deployment.http.get(f"/v1/users/{USER}/episodes", params={"limit": 1}, headers=auth)
    everything = await deployment.http.get(f"/v1/users/{USER}/episodes", params={"state": "all"}, headers=auth)
    read = await deployment.http.get(f"/v1/episodes/{private}", headers=auth)
    revoke = await deployment.http.post(f"/v1/episodes/{private}/revoke", headers=auth)
    by_operator = await deployment.http.get(f"/v1/users/{USER}/episodes", headers=deployment.auth("keyAagents"))
    by_default_key = await deployment.http.get(f"/v1/users/{USER}/episodes", headers=deployment.auth("keyA"))

    assert [e["id"] for e in first_page.json()["episodes"]] == [shared]
    assert first_page.json()["next_cursor"] is None  # the private one is not counted by the limit either
    assert [e["id"] for e in everything.json()["episodes"]] == [shared]
    assert (read.status_code, revoke.status_code) == (404, 404)
    assert [e["id"] for e in by_operator.json()["episodes"]] == [shared, private]  # with `agents`
    assert [e["id"] for e in by_default_key.json()["episodes"]] == [shared]  # a tenant key's default: no agent
    episode = await deployment.store.get_episode(deployment.tenant_a, private)
    assert episode is not None and episode.state.value == "active"


async def test_another_agents_private_values_stay_out_of_the_attribute_history(deployment: Deployment) -> None:
    await deployment.retain("keyA", "I always use dark mode.")
    await deployment.retain("keyAX", "I always use light mode.", private=True)
    path = f"/v1/users/{USER}/attributes/preferred_theme/history"

    def values(response) -> list[str]:
        assert response.status_code == 200, response.text
        return sorted(v["value"] for v in response.json()["history"])

    assert values(await deployment.http.get(path, headers=deployment.auth("keyAshared"))) == ["dark"]
    assert values(await deployment.http.get(path, headers=deployment.auth("keyAY"))) == ["dark"]
    assert values(await deployment.http.get(path, headers=deployment.auth("keyAX"))) == ["dark", "light"]
    assert values(await deployment.http.get(path, headers=deployment.auth("keyAagents"))) == ["dark", "light"]
    assert values(await deployment.http.get(path, headers=deployment.auth("keyA"))) == ["dark"]
