"""Liveness and readiness (no auth), and the OpenAPI document."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from fastapi import FastAPI

from sidecar.app import create_app
from sidecar.routes.health import health_routes


class Pings:
    """A vector index stand-in: only `ping` is used by the sidecar so far."""

    def __init__(self, result: bool | Exception = True) -> None:
        self.result = result

    async def ping(self) -> bool:
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


@pytest.fixture
def app_with(settings, store, publisher):
    """An HTTP client on an app whose store ping and vector index are chosen by the test."""

    def build(vectors=None, store_ping=None):
        if store_ping is not None:
            store.ping = store_ping  # the instance attribute shadows the real ping for this app only
        app = create_app(settings, store, publisher, vectors)
        return httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sidecar")

    return build


async def test_healthz_needs_no_key(client):
    response = await client.get("/healthz")

    assert (response.status_code, response.json()) == (200, {"status": "ok"})


async def test_readyz_reports_every_dependency(app_with):
    async with app_with(vectors=Pings(True)) as client:
        response = await client.get("/readyz")

    assert response.status_code == 200
    assert response.json() == {"status": "ready", "checks": {"broker": "ok", "sql": "ok", "sql_writes": "ok", "vectors": "ok"}}


async def test_readyz_without_vectors_checks_broker_and_sql(client):
    response = await client.get("/readyz")

    assert response.json()["checks"] == {"broker": "ok", "sql": "ok", "sql_writes": "ok"}


async def test_readyz_is_503_naming_the_failed_broker(client, publisher):
    publisher.healthy = False

    response = await client.get("/readyz")

    assert response.status_code == 503
    body = response.json()
    assert body["error"]["code"] == "not_ready"
    assert "broker" in body["error"]["message"]
    assert body["checks"] == {"broker": "failed", "sql": "ok", "sql_writes": "ok"}


async def test_readyz_counts_a_raising_ping_as_failed(app_with):
    async with app_with(vectors=Pings(ConnectionError("qdrant is down"))) as client:
        response = await client.get("/readyz")

    assert response.status_code == 503
    assert response.json()["checks"]["vectors"] == "failed"
    assert "qdrant is down" not in response.text


async def test_readyz_counts_a_failing_store_as_failed(app_with):
    async def down() -> bool:
        return False

    async with app_with(store_ping=down) as client:
        response = await client.get("/readyz")

    assert response.status_code == 503
    assert response.json()["checks"] == {"broker": "ok", "sql": "failed", "sql_writes": "ok"}


async def test_readyz_does_not_hang_on_a_hung_dependency():
    async def hangs() -> bool:
        await asyncio.sleep(60)
        return True

    app = FastAPI()
    app.include_router(health_routes([("sql", hangs)], timeout_s=0.05))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sidecar") as client:
        response = await asyncio.wait_for(client.get("/readyz"), 5)

    assert response.status_code == 503
    assert response.json()["checks"] == {"sql": "failed"}


async def test_openapi_document_has_title_version_and_routes(client):
    response = await client.get("/openapi.json")

    assert response.status_code == 200
    document = response.json()
    assert document["info"]["title"] == "beliefstream sidecar"
    assert document["info"]["version"]
    assert {
        "/v1/retain",
        "/v1/jobs/{job_id}",
        "/v1/users/{user_id}/memories",
        "/v1/memories/{memory_id}",
        "/healthz",
        "/readyz",
    } <= set(document["paths"])
    assert "HTTPBearer" in document["components"]["securitySchemes"]
