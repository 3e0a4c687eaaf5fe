"""`DELETE /v1/users/{user_id}`: erasure of rows, jobs and vector points; others untouched."""

from __future__ import annotations

from sinks.base import VectorFilter
from tests.sidecar.bodies import ACME, BOT, OTHER, editor


async def seed(governed, headers, user: str, *values: str) -> list[str]:
    ids = []
    for value in values:
        response = await governed.post("/v1/memories", json=editor(value, user_id=user), headers=headers)
        assert response.status_code == 201, response.text
        ids.append(response.json()["id"])
    return ids


async def point_count(vectors, minilm, tenant: str, user: str) -> int:
    [query] = await minilm.aembed(["editor"])
    scope = VectorFilter(tenant, user, states=["active", "superseded", "revoked"])
    return len(await vectors.search(query.tolist(), scope, limit=100))


async def test_erasure_deletes_memories_jobs_and_points_of_that_user_only(
    governed, store, edge_vectors, minilm, publisher
):
    await seed(governed, ACME, "u-1", "vim", "helix")  # helix supersedes vim: two rows
    await seed(governed, ACME, "u-2", "emacs")
    await seed(governed, OTHER, "u-1", "nano")
    retained = await governed.post(
        "/v1/retain", json={"turns": [{"user_id": "u-1", "role": "user", "text": "hi"}]}, headers=ACME
    )
    [job_id] = retained.json()["job_ids"]
    kept = await governed.post(
        "/v1/retain", json={"user_id": "u-2", "role": "user", "text": "hey"}, headers=ACME
    )

    response = await governed.delete("/v1/users/u-1", headers=ACME)

    assert response.status_code == 200, response.text
    receipt = response.json()
    assert (receipt["user_id"], receipt["memories_deleted"], receipt["jobs_deleted"]) == ("u-1", 2, 1)
    assert {k: receipt["counts"][k] for k in ("memories", "embeddings", "vector_points", "jobs")} == {
        "memories": 2, "embeddings": 2, "vector_points": 2, "jobs": 1
    }
    listed = await governed.get("/v1/users/u-1/memories", params={"state": "all"}, headers=ACME)
    assert listed.json()["memories"] == []
    assert (await governed.get(f"/v1/jobs/{job_id}", headers=ACME)).status_code == 404
    assert await point_count(edge_vectors, minilm, "acme", "u-1") == 0
    assert await point_count(edge_vectors, minilm, "acme", "u-2") == 1
    assert await point_count(edge_vectors, minilm, "other", "u-1") == 1
    [other_job] = kept.json()["job_ids"]
    assert (await governed.get(f"/v1/jobs/{other_job}", headers=ACME)).status_code == 200
    other = await governed.get("/v1/users/u-1/memories", headers=OTHER)
    assert len(other.json()["memories"]) == 1


async def test_erasing_again_or_an_unknown_user_answers_zeros(governed):
    await seed(governed, ACME, "u-1", "vim")
    await governed.delete("/v1/users/u-1", headers=ACME)

    again = await governed.delete("/v1/users/u-1", headers=ACME)

    assert again.status_code == 200
    assert (again.json()["memories_deleted"], again.json()["jobs_deleted"]) == (0, 0)
    assert set(again.json()["counts"].values()) == {0}


async def test_an_agent_bound_key_may_not_erase(governed, store):
    [memory_id] = await seed(governed, ACME, "u-1", "vim")

    response = await governed.delete("/v1/users/u-1", headers=BOT)

    assert (response.status_code, response.json()["error"]["code"]) == (403, "forbidden")
    assert await store.get_memory("acme", memory_id) is not None


async def test_erasure_needs_a_key(governed):
    assert (await governed.delete("/v1/users/u-1")).status_code == 401
