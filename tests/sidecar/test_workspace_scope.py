"""Scope by workspace and session (issue 29, item 10): a turn that names a workspace gives beliefs
and an episode seen only by reads in that workspace (recall and the listings, in the query); a
session narrows a listing to what was said in it. Real app, real write pipeline, both backends."""

from __future__ import annotations

from datetime import timedelta

from tests.sidecar.four_keys import START, USER, Deployment, deployment_fixture  # noqa: F401 (the fixture)


async def _retain(deployment: Deployment, text: str, **where: str) -> None:
    deployment.clock += 1
    body = {
        "user_id": USER, "role": "user", "text": text,
        "ts": (START + timedelta(days=deployment.clock)).isoformat(), **where,
    }  # fmt: skip
    response = await deployment.http.post("/v1/retain", json=body, headers=deployment.auth("keyA"))
    assert response.status_code == 202, response.text
    await deployment.drain()


async def _seeded(deployment: Deployment) -> None:
    await _retain(deployment, "I always use dark mode.", session_id="s-home")
    await _retain(deployment, "My favourite database is PostgreSQL.", workspace_id="ws-payments", session_id="s-pay")
    await _retain(deployment, "I love hiking in the Alps.", workspace_id="ws-garden", session_id="s-garden")


async def test_recall_sees_its_workspace_and_what_belongs_to_none(deployment: Deployment) -> None:
    await _seeded(deployment)

    questions = {"dark mode": "which theme do I use?", "PostgreSQL": "which database do I like?",
                 "hiking": "what do I love doing outdoors?"}  # fmt: skip

    async def mentions(**where: str) -> set[str]:
        found = set()
        for word, question in questions.items():
            if any(word in text for text in await deployment.recall("keyA", question, **where)):
                found.add(word)
        return found

    assert await mentions(workspace_id="ws-payments") == {"dark mode", "PostgreSQL"}
    assert await mentions(workspace_id="ws-garden") == {"dark mode", "hiking"}
    assert await mentions() == {"dark mode"}
    quotes = await deployment.http.post(
        "/v1/recall", json={"user_id": USER, "query": "hiking in the Alps", "workspace_id": "ws-payments"},
        headers=deployment.auth("keyA"),
    )  # fmt: skip
    assert not any("Alps" in e["text"] for e in quotes.json().get("episodes", []))  # quotes are scoped too


async def test_listings_narrow_to_the_workspace_and_session_named(deployment: Deployment) -> None:
    await _seeded(deployment)

    async def texts(path: str, key: str, **params: str) -> list[str]:
        response = await deployment.http.get(path, params=params, headers=deployment.auth("keyA"))
        assert response.status_code == 200, response.text
        return sorted(item["text"] for item in response.json()[key])

    memories, episodes = f"/v1/users/{USER}/memories", f"/v1/users/{USER}/episodes"
    assert len(await texts(memories, "memories")) == 3  # naming nothing: every row within reach
    payments = await texts(memories, "memories", workspace_id="ws-payments")
    assert len(payments) == 2 and not any("hiking" in t for t in payments)
    assert await texts(episodes, "episodes", workspace_id="ws-garden") == [
        "I always use dark mode.", "I love hiking in the Alps.",
    ]  # fmt: skip
    assert await texts(episodes, "episodes", session_id="s-pay") == ["My favourite database is PostgreSQL."]
    home = await texts(memories, "memories", session_id="s-home")
    assert len(home) == 1 and "dark mode" in home[0]


async def test_a_workspace_belief_never_supersedes_the_shared_one(deployment: Deployment) -> None:
    await _retain(deployment, "I always use dark mode.")
    await _retain(deployment, "I always use light mode.", workspace_id="ws-design")

    shared = await deployment.recall("keyA", "which theme do I use?")
    design = await deployment.recall("keyA", "which theme do I use?", workspace_id="ws-design")

    assert any("dark" in t for t in shared) and not any("light" in t for t in shared)
    assert any("light" in t for t in design)
