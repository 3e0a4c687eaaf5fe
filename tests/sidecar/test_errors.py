"""Every failure is the JSON error body of contract §3, and a 500 never carries a traceback."""

from __future__ import annotations

import logging

from sinks.errors import BackpressureError, SinkUnavailableError

ACME = {"Authorization": "Bearer key-acme"}


async def test_unknown_route_is_404_json(client):
    response = await client.get("/v1/nothing-here", headers=ACME)

    assert response.status_code == 404
    assert response.json() == {"error": {"code": "not_found", "message": "Not Found"}}


async def test_wrong_method_is_405_json(client):
    response = await client.delete("/v1/retain", headers=ACME)

    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"
    assert "POST" in response.headers["allow"]


async def test_unexpected_exception_is_500_without_a_traceback(client, store, caplog):
    async def broken(tenant_id: str, job_id: str):
        raise RuntimeError("secret connection string postgres://admin:hunter2@db")

    store.get_job = broken

    with caplog.at_level(logging.ERROR, logger="sidecar.errors"):
        response = await client.get("/v1/jobs/any", headers=ACME)

    assert response.status_code == 500
    assert response.json() == {
        "error": {"code": "internal_error", "message": "internal error; see the sidecar log"}
    }
    assert "hunter2" not in response.text and "Traceback" not in response.text
    assert "hunter2" in caplog.text  # logged with its traceback for the operator


async def test_store_outage_is_503(client, store):
    async def down(tenant_id: str, job_id: str):
        raise SinkUnavailableError("connection refused")

    store.get_job = down

    response = await client.get("/v1/jobs/any", headers=ACME)

    assert response.status_code == 503
    assert response.json()["error"]["code"] == "unavailable"
    assert "connection refused" not in response.text


async def test_store_backpressure_is_503_with_retry_after(client, store):
    async def full(jobs, turns=()) -> None:
        raise BackpressureError("queue full", retry_after=2.4)

    store.enqueue_jobs = full

    response = await client.post(
        "/v1/retain", json={"user_id": "u", "role": "user", "text": "x"}, headers=ACME
    )

    assert response.status_code == 503
    assert response.headers["retry-after"] == "2"
