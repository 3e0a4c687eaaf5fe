"""`POST /v1/recall` over HTTP: auth, validation errors as JSON, agent-bound keys, the answer's shape."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from beliefs.records import Visibility
from sidecar.app import create_app
from sidecar.recall.access import AccessRecorder
from sidecar.recall.audit import AuditLog
from sidecar.recall.service import RecallService
from tests.sidecar.recall.seeding import mem, seed

KEY = {"Authorization": "Bearer key-acme"}
OTHER = {"Authorization": "Bearer key-other"}
BOT = {"Authorization": "Bearer key-bot"}  # tenant acme, bound to agent bot


@pytest.fixture
async def http(settings, store, publisher, edge_vectors, minilm) -> AsyncIterator[httpx.AsyncClient]:
    recall = RecallService(
        store, edge_vectors, minilm, audit=AuditLog(store), access_recorder=AccessRecorder(store)
    )
    await recall.start()
    app = create_app(settings, store, publisher, edge_vectors, embedder=minilm, recall=recall, contested=store)
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sidecar") as client:
            await seed(
                store,
                edge_vectors,
                minilm,
                [
                    mem("acme", "u1", "The user prefers green tea in the morning."),
                    mem(
                        "acme",
                        "u1",
                        "Bot scratchpad: tea order pending.",
                        visibility=Visibility.AGENT,
                        agent_id="bot",
                    ),
                    mem("other", "u1", "The user prefers black tea."),
                ],
            )
            yield client
    finally:
        await recall.close()


async def test_recall_answers_in_the_contract_shape(http) -> None:
    response = await http.post("/v1/recall", json={"user_id": "u1", "query": "tea"}, headers=KEY)
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {
        "memories", "conflicts", "suppressed", "tokens_used", "diagnostics", "confirmations", "notes", "prompt"
    }  # fmt: skip
    assert body["prompt"] is None  # only with format "prompt"
    [memory] = body["memories"]
    assert memory["text"] == "The user prefers green tea in the morning."
    assert {
        "id",
        "text",
        "type",
        "confidence",
        "effective_confidence",
        "score",
        "recall_reason",
        "citations",
        "valid_from",
        "trust",
        "source_role",
        "recalled_at",
        "last_confirmed",
        "needs_confirmation",
    } <= set(memory)
    assert (memory["trust"], memory["source_role"]) == ("trusted", "user")


async def test_recall_tenant_comes_from_the_key(http) -> None:
    response = await http.post("/v1/recall", json={"user_id": "u1", "query": "tea"}, headers=OTHER)
    assert [m["text"] for m in response.json()["memories"]] == ["The user prefers black tea."]


async def test_recall_agent_bound_key(http) -> None:
    own = await http.post(
        "/v1/recall", json={"user_id": "u1", "query": "tea", "agent_id": "bot"}, headers=BOT
    )
    assert len(own.json()["memories"]) == 2
    widened = await http.post(
        "/v1/recall", json={"user_id": "u1", "query": "tea", "agent_id": "spy"}, headers=BOT
    )
    assert widened.status_code == 403 and widened.json()["error"]["code"] == "forbidden"
    unbound = await http.post("/v1/recall", json={"user_id": "u1", "query": "tea"}, headers=KEY)
    assert len(unbound.json()["memories"]) == 1


async def test_recall_needs_a_key(http) -> None:
    response = await http.post("/v1/recall", json={"user_id": "u1", "query": "tea"})
    assert response.status_code == 401 and response.json()["error"]["code"] == "unauthorized"


@pytest.mark.parametrize(
    "body",
    [
        {"query": "tea"},
        {"user_id": "u1", "query": "tea", "agentid": "bot"},
        {"user_id": "u1", "query": "tea", "budget_tokens": 0},
        {"user_id": "u1", "query": "tea", "limit": 1000},
        {"user_id": "u1", "query": "tea", "preset": "fastest"},
        {"user_id": "u1", "query": "tea", "action": {"domain": "restaurant"}},
        {"user_id": "", "query": "tea"},
        {"user_id": "u1", "query": "tea", "context_turns": 9},
        {"user_id": "u1", "query": "tea", "superseded_episodes": "hide"},
        {"user_id": "u1", "query": "tea", "dates_relative_to": "last tuesday"},
    ],
)
async def test_recall_validation_errors_are_json(http, body) -> None:
    response = await http.post("/v1/recall", json=body, headers=KEY)
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid_request"


async def test_recall_diagnostics_over_http(http) -> None:
    body = {"user_id": "u1", "query": "green tea", "diagnostics": True, "preset": "precise"}
    response = await http.post("/v1/recall", json=body, headers=KEY)
    payload = response.json()
    assert payload["diagnostics"]["preset"] == "precise"
    assert payload["memories"][0]["sources"]["keyword_rank"] == 1


async def test_recall_is_not_mounted_without_a_service(client) -> None:
    response = await client.post("/v1/recall", json={"user_id": "u1", "query": "tea"}, headers=KEY)
    assert response.status_code == 404
