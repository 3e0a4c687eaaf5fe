"""Governance writes with the vector index down: each answers from SQL, recall never surfaces a
revoked or erased memory through a lagging point, `/readyz` reports the backlog, and the index
matches SQL once the projector can write again."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator

import httpx
import pytest
from projection import DownIndex, index_matches_sql, indexed_points, projector_of

from agents.projector import VectorProjector
from sidecar.app import create_app
from sidecar.recall.service import RecallService
from sinks.sql.admin import AdminStore
from tests.sidecar.bodies import ACME, editor
from tests.sidecar.conftest import make_memory, outcome_of


@pytest.fixture
def down(edge_vectors) -> DownIndex:
    return DownIndex(edge_vectors)


@pytest.fixture
def lagging_projector(store, down) -> VectorProjector:
    return projector_of(store, down)


@pytest.fixture
async def http(settings, store, publisher, edge_vectors, minilm, lagging_projector) -> AsyncIterator[httpx.AsyncClient]:
    recall = RecallService(store, edge_vectors, minilm)
    await recall.start()
    app = create_app(
        settings, store, publisher, edge_vectors, embedder=minilm, recall=recall,
        admin=AdminStore.of(store), contested=store, projector=lagging_projector,
    )  # fmt: skip
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sidecar") as client:
            yield client
    finally:
        await recall.close()


async def recalled(http: httpx.AsyncClient, user: str, query: str) -> list[str]:
    response = await http.post("/v1/recall", json={"user_id": user, "query": query}, headers=ACME)
    assert response.status_code == 200, response.text
    return [m["id"] for m in response.json()["memories"]]


async def test_governance_writes_answer_while_the_index_is_down_and_it_catches_up(
    http, store, edge_vectors, down, minilm, lagging_projector
) -> None:
    kept = (await http.post("/v1/memories", json=editor("vim"), headers=ACME)).json()
    doomed = (await http.post("/v1/memories", json=editor("emacs", user_id="u-2"), headers=ACME)).json()
    assert set(await indexed_points(edge_vectors, "acme")) == {kept["id"], doomed["id"]}  # settled while up
    assert await recalled(http, "u-2", "which editor?") == [doomed["id"]]
    for minute, value in enumerate(["nano", "helix", "nano", "helix"]):  # a contradiction loop of u-3
        memory = make_memory("acme", "u-3", f"loop-{minute}", f"The user prefers {value}.", value=value, minutes=minute)
        [vector] = await minilm.aembed([memory.text])
        await store.write([dataclasses.replace(outcome_of(memory), embeddings=[vector.tolist()])])
    (loop,) = await store.list_contested("acme", "u-3")

    down.down = True
    direct = await http.post("/v1/memories", json=editor("helix", user_id="u-4"), headers=ACME)
    edited = await http.patch(f"/v1/memories/{kept['id']}", json={"value": "kakoune", "text": "The user prefers kakoune."},
                              headers=ACME)  # fmt: skip
    revoked = await http.post(f"/v1/memories/{edited.json()['id']}/revoke", headers=ACME)
    resolved = await http.post(f"/v1/contested/{loop.id}/resolve", json={"value": "nano"}, headers=ACME)
    erased = await http.delete("/v1/users/u-2", headers=ACME)

    assert [r.status_code for r in (direct, edited, revoked, resolved, erased)] == [201, 200, 200, 200, 200]
    assert down.refused >= 5  # each request asked the projector to follow, which could not
    ready = (await http.get("/readyz")).json()
    assert ready["status"] == "ready" and ready["vector_projection"]["backlog"] >= 6
    assert ready["vector_projection"]["oldest_age_seconds"] >= 0
    assert doomed["id"] in await indexed_points(edge_vectors, "acme")  # the index lags behind SQL...
    assert await recalled(http, "u-2", "which editor?") == []  # ...but recall reads SQL: erased is gone
    assert await recalled(http, "u-1", "which editor?") == []  # vim superseded, kakoune revoked

    down.down = False
    assert await lagging_projector.drain() > 0
    assert await index_matches_sql(store, edge_vectors, "acme")
    assert doomed["id"] not in await indexed_points(edge_vectors, "acme")
    assert (await http.get("/readyz")).json()["vector_projection"] == {"backlog": 0, "oldest_age_seconds": 0.0}
