"""Issue 12, bugs 6 (capabilities) and 8 (caller confidence): what each kind of key may do, and a
direct insert's confidence and source role as compatibility signals, not authority."""

from __future__ import annotations

import pytest

from beliefs.errors import ConfigurationError
from sidecar.auth import AGENT_DEFAULT, TENANT_DEFAULT, ApiKeyAuthenticator, Capability, Principal
from sidecar.errors import Forbidden
from streams.settings import Settings
from tests.sidecar.four_keys import USER, Deployment, deployment_fixture  # noqa: F401 (the fixture)

TRUSTED_CLAIM = {
    "user_id": USER,
    "text": "User is an admin.",
    "type": "fact",
    "topic": "work",
    "importance": 1.0,
    "confidence": 1.0,
    "entity": "user",
    "attribute": "role",
    "value": "admin",
    "source_role": "user",
}


async def test_an_agent_bound_key_may_not_insert_a_memory_directly(deployment: Deployment) -> None:
    response = await deployment.http.post("/v1/memories", json=TRUSTED_CLAIM, headers=deployment.auth("keyAX"))

    assert (response.status_code, response.json()["error"]["code"]) == (403, "forbidden")
    assert "manage" in response.json()["error"]["message"]
    memories, _ = await deployment.store.list_memories(deployment.tenant_a, USER, state=None)
    assert memories == []


async def test_a_caller_supplied_confidence_is_not_authority(deployment: Deployment) -> None:
    await deployment.retain("keyA", "I always use dark mode.")
    claim = {
        "user_id": USER, "text": "User prefers light mode.", "type": "preference", "topic": "tech",
        "importance": 1.0, "confidence": 1.0, "entity": "user", "attribute": "preferred_theme",
        "value": "light", "source_role": "user",
    }  # fmt: skip

    response = await deployment.http.post("/v1/memories", json=claim, headers=deployment.auth("keyA"))

    assert response.status_code == 201, response.text
    stored = response.json()
    assert (stored["trust"], stored["confidence"]) == ("caution", 0.5)
    active, _ = await deployment.store.list_memories(deployment.tenant_a, USER)
    dark = next(m for m in active if m.value == "dark")
    assert dark.is_current and dark.trust.value == "trusted"  # never superseded by the direct insert


async def test_an_admin_key_inserts_with_authority(deployment: Deployment) -> None:
    await deployment.retain("keyA", "I always use dark mode.")
    claim = TRUSTED_CLAIM | {
        "text": "User prefers light mode.", "topic": "tech", "type": "preference",
        "attribute": "preferred_theme", "value": "light",
    }  # fmt: skip

    response = await deployment.http.post("/v1/memories", json=claim, headers=deployment.auth("keyAdmin"))

    assert (response.json()["trust"], response.json()["confidence"]) == ("trusted", 1.0)
    active, _ = await deployment.store.list_memories(deployment.tenant_a, USER)
    assert [m.value for m in active] == ["light"]


async def test_agent_keys_retain_and_recall_but_do_not_manage(deployment: Deployment) -> None:
    job_id = await deployment.retain("keyAX", "I always use dark mode.")
    memory_id = (await deployment.http.get(f"/v1/jobs/{job_id}", headers=deployment.auth("keyAX"))).json()[
        "memory_ids"
    ][0]

    revoke = await deployment.http.post(f"/v1/memories/{memory_id}/revoke", headers=deployment.auth("keyAX"))
    consolidate = await deployment.http.post(
        "/v1/consolidate", json={"topic": "tech"}, headers=deployment.auth("keyAY")
    )
    erase = await deployment.http.delete(f"/v1/users/{USER}", headers=deployment.auth("keyAYm"))

    assert [r.status_code for r in (revoke, consolidate, erase)] == [403, 403, 403]
    assert {r.json()["error"]["code"] for r in (revoke, consolidate, erase)} == {"forbidden"}


async def test_an_agent_forgets_its_own_private_memory_without_manage(deployment: Deployment) -> None:
    job_id = await deployment.retain("keyAX", "I always use light mode.", private=True)
    job = (await deployment.http.get(f"/v1/jobs/{job_id}", headers=deployment.auth("keyAX"))).json()

    response = await deployment.http.post(
        f"/v1/memories/{job['memory_ids'][0]}/revoke", headers=deployment.auth("keyAX")
    )

    assert response.status_code == 200 and response.json()["state"] == "revoked"


async def test_a_tenant_key_without_agents_may_not_act_as_an_agent(tmp_path) -> None:
    settings = Settings(api_keys="k1=acme/retain+recall,k2=acme,k3=acme:bot/recall,k4=acme/recall+agents", data_dir=tmp_path)
    authenticator = ApiKeyAuthenticator(settings.parsed_api_key_grants())

    narrow, default, bot = (authenticator.authenticate(k) for k in ("k1", "k2", "k3"))

    assert narrow.capabilities == {Capability.RETAIN, Capability.RECALL}
    assert default.capabilities == TENANT_DEFAULT and Capability.ADMIN not in default.capabilities
    assert Capability.AGENTS not in default.capabilities  # identity from the key: no agent by default
    assert bot.capabilities == {Capability.RECALL}
    for key in (narrow, default):
        with pytest.raises(Forbidden):
            key.acting_agent("bot")
        assert not key.reach.sees("bot")
    operator = authenticator.authenticate("k4")
    assert operator.acting_agent("bot") == "bot" and operator.reach.sees("bot")
    with pytest.raises(Forbidden):
        bot.require(Capability.RETAIN, "retaining")
    assert settings.parsed_api_keys() == {
        "k1": ("acme", None), "k2": ("acme", None), "k3": ("acme", "bot"), "k4": ("acme", None),
    }  # fmt: skip


def test_defaults_of_each_kind_of_key() -> None:
    assert Principal("acme").capabilities == TENANT_DEFAULT
    assert Principal("acme", "bot").capabilities == AGENT_DEFAULT == {Capability.RETAIN, Capability.RECALL}
    assert ApiKeyAuthenticator({"k": ("acme", None, ["all"])}).authenticate("k").capabilities == set(Capability)


@pytest.mark.parametrize("keys", ["k=acme/", "k=acme/retain+fly", "k=acme:bot/"])
def test_a_bad_capability_list_fails_at_start_up(keys: str, tmp_path) -> None:
    with pytest.raises(ConfigurationError):
        ApiKeyAuthenticator(Settings(api_keys=keys, data_dir=tmp_path).parsed_api_key_grants())


async def test_a_default_tenant_key_acts_for_no_agent(deployment: Deployment) -> None:
    """Identity from the key (issue 29, item 13): a tenant key without `agents` in its entry names no
    agent, sees no agent's private memory, and a key bound to that agent still does."""
    await deployment.retain("keyAX", "I always use vim for my notes.", private=True)
    await deployment.retain("keyA", "I always use dark mode.")

    as_agent = await deployment.http.post(
        "/v1/recall", json={"user_id": USER, "query": "which editor?", "agent_id": "agentX"},
        headers=deployment.auth("keyA"),
    )  # fmt: skip
    listed = await deployment.http.get(f"/v1/users/{USER}/memories", headers=deployment.auth("keyA"))

    assert (as_agent.status_code, as_agent.json()["error"]["code"]) == (403, "forbidden")
    assert "agents" in as_agent.json()["error"]["message"]
    assert [m["text"] for m in listed.json()["memories"]] == ["User prefers dark mode."]
    assert not any("vim" in text for text in await deployment.recall("keyA", "which editor do I use?"))
    assert any("vim" in text for text in await deployment.recall("keyAX", "which editor do I use?"))
    assert any("vim" in t for t in await deployment.recall("keyAagents", "which editor?", agent_id="agentX"))
