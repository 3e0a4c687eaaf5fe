"""`POST /v1/consolidate` on the real store (SQLite) and the real embedder, mounted on its own app
(the sidecar's `create_app` mounts it once the lead wires it in)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI
from projection import projector_of

from agents.consolidate import Consolidator
from embedding.embedder import load_default_embedder
from sidecar.access import AccessGuard
from sidecar.auth import ApiKeyAuthenticator
from sidecar.errors import install_error_handlers
from sidecar.routes.consolidate import consolidate_routes
from sinks.sql.manage_store import MaintenanceStore
from tests.agents.manage_helpers import RecordingVectors, seed, stored
from tests.sidecar.conftest import make_memory

AUTH = {"Authorization": "Bearer key-acme"}


@pytest.fixture
async def http(settings, store) -> AsyncIterator[httpx.AsyncClient]:
    embedder = load_default_embedder()
    app = FastAPI()
    install_error_handlers(app)
    consolidator = Consolidator(MaintenanceStore.of(store), projector_of(store, RecordingVectors()), embedder)
    app.include_router(consolidate_routes(AccessGuard(ApiKeyAuthenticator(settings.parsed_api_keys())), consolidator))
    texts = ["User prefers Python.", "User mentioned preferring Python."]
    rows = [
        make_memory("acme", "u1", f"t{i}", text, attribute="likes", value=f"v{i}", minutes=i)
        for i, text in enumerate(texts)
    ]
    await seed(store, list(zip(rows, embedder.embed(texts).tolist(), strict=True)))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sidecar") as client:
        yield client


async def test_dry_run_by_default_then_apply(http: httpx.AsyncClient, store) -> None:
    response = await http.post("/v1/consolidate", json={"topic": "tech", "user_id": "u1"}, headers=AUTH)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["dry_run"] is True and body["tenant_id"] == "acme" and body["similarity_threshold"] == 0.85
    (group,) = body["groups"]
    assert len(group["member_ids"]) == 2 and group["applied"] is False
    assert len(await stored(store, "acme")) == 2

    applied = await http.post("/v1/consolidate", json={"topic": "tech", "dry_run": False}, headers=AUTH)
    assert applied.status_code == 200 and applied.json()["groups"][0]["applied"] is True
    assert len(await stored(store, "acme")) == 3


async def test_the_key_decides_the_tenant(http: httpx.AsyncClient) -> None:
    other = await http.post(
        "/v1/consolidate", json={"topic": "tech"}, headers={"Authorization": "Bearer key-other"}
    )
    assert other.status_code == 200 and other.json()["groups"] == []
    bound = await http.post(
        "/v1/consolidate", json={"topic": "tech"}, headers={"Authorization": "Bearer key-bot"}
    )
    assert bound.status_code == 403 and bound.json()["error"]["code"] == "forbidden"
    anonymous = await http.post("/v1/consolidate", json={"topic": "tech"})
    assert anonymous.status_code == 401


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"topic": ""},
        {"topic": "tech", "similarity_threshold": 0},
        {"topic": "tech", "similarity_threshold": 1.5},
        {"topic": "tech", "tenant_id": "other"},
    ],
)
async def test_bad_bodies(http: httpx.AsyncClient, body: dict) -> None:
    response = await http.post("/v1/consolidate", json=body, headers=AUTH)
    assert 400 <= response.status_code < 500 and "error" in response.json()
