"""`GET /metrics`: Prometheus text with request counts and latency by route template and status."""

from __future__ import annotations

import httpx
from prometheus_client.parser import text_string_to_metric_families

from sidecar.app import create_app
from tests.sidecar.bodies import ACME


def samples(text: str) -> dict[tuple[str, tuple], float]:
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def requests(method: str, route: str, status: str) -> tuple[str, tuple]:
    labels = {"method": method, "route": route, "status": status}
    return ("beliefstream_http_requests_total", tuple(sorted(labels.items())))


async def test_metrics_count_requests_by_route_template_and_status(client):
    await client.get("/v1/jobs/job-1", headers=ACME)
    await client.get("/v1/jobs/job-2", headers=ACME)
    await client.get("/v1/jobs/job-3")
    await client.get("/no/such/path")
    await client.get("/healthz")

    response = await client.get("/metrics")

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    found = samples(response.text)
    assert found[requests("GET", "/v1/jobs/{job_id}", "404")] == 2
    assert found[requests("GET", "/v1/jobs/{job_id}", "401")] == 1
    assert found[requests("GET", "unmatched", "404")] == 1
    assert found[requests("GET", "/healthz", "200")] == 1
    latency = (
        "beliefstream_http_request_duration_seconds_count",
        (("method", "GET"), ("route", "/v1/jobs/{job_id}")),
    )
    assert found[latency] == 3
    assert not any("job-1" in str(key) for key in found)  # ids never become labels


async def test_metrics_need_no_key_and_apps_do_not_share_counts(client, settings, store, publisher):
    await client.get("/healthz")
    fresh = create_app(settings, store, publisher)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(fresh), base_url="http://other") as other:
        text = (await other.get("/metrics")).text

    assert requests("GET", "/healthz", "200") not in samples(text)
