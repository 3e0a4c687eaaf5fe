"""`GET /v1/jobs/{id}`: another tenant's job reads exactly like a job that does not exist."""

from __future__ import annotations

from beliefs.records import job_id_for

ACME = {"Authorization": "Bearer key-acme"}
OTHER = {"Authorization": "Bearer key-other"}


async def test_job_of_another_tenant_is_404_not_403(client):
    await client.post(
        "/v1/retain", json={"turn_id": "t-1", "user_id": "u-1", "role": "user", "text": "x"}, headers=ACME
    )
    job_id = job_id_for("acme", "t-1")

    own = await client.get(f"/v1/jobs/{job_id}", headers=ACME)
    foreign = await client.get(f"/v1/jobs/{job_id}", headers=OTHER)
    missing = await client.get("/v1/jobs/no-such-job", headers=OTHER)

    assert own.status_code == 200
    assert foreign.status_code == missing.status_code == 404
    assert foreign.json()["error"]["code"] == missing.json()["error"]["code"] == "not_found"


async def test_same_turn_id_in_two_tenants_is_two_jobs(client):
    body = {"turn_id": "t-1", "user_id": "u-1", "role": "user", "text": "x"}

    acme = await client.post("/v1/retain", json=body, headers=ACME)
    other = await client.post("/v1/retain", json=body, headers=OTHER)

    assert acme.json()["job_ids"] != other.json()["job_ids"]
    assert (await client.get(f"/v1/jobs/{other.json()['job_ids'][0]}", headers=OTHER)).status_code == 200


async def test_done_job_shows_its_memories(client, store, memory_factory, outcome_factory):
    memory = memory_factory("acme", "u-1", "t-9", "The user prefers vim.")
    await store.write([outcome_factory(memory)])

    response = await client.get(f"/v1/jobs/{job_id_for('acme', 't-9')}", headers=ACME)

    assert response.status_code == 200
    assert (response.json()["state"], response.json()["memory_ids"]) == ("done", [memory.id])
