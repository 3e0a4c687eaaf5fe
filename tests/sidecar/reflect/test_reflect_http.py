"""`POST /v1/reflect` offline: the extractive answer, labelled weak evidence, scope, and no writes."""

from __future__ import annotations

import sqlalchemy as sa

from sinks.sql import tables
from tests.sidecar.reflect.conftest import CAUTION, FOREIGN, KEY, OTHER, STRONG, WEAK

QUESTION = {"user_id": "u1", "question": "What am I allergic to?"}


async def test_extractive_answer_puts_the_strongest_first_and_labels_weak_evidence(reflect_client) -> None:
    http = await reflect_client()
    response = await http.post("/v1/reflect", json=QUESTION, headers=KEY)
    assert response.status_code == 200
    body = response.json()
    assert body["mode"] == "extractive"
    assert body["note"] is None
    answer = body["answer"]
    assert answer.startswith("Based on what you've told me: The user is allergic to peanuts (confidence 0.")
    strong_part, _, weak_part = answer.partition("Weaker evidence:")
    assert "peanuts" in strong_part and "shellfish" not in strong_part and "cats" not in strong_part
    assert "shellfish (confidence 0.4" in weak_part
    assert "cats, according to an assistant note (confidence 0.9" in weak_part
    assert "less trusted source" in weak_part
    evidence = {item["text"]: item for item in body["evidence"]}
    assert body["evidence"][0]["text"] == STRONG
    assert evidence[STRONG]["weak"] is False
    assert evidence[WEAK]["weak"] is True and evidence[WEAK]["effective_confidence"] < 0.6
    assert evidence[CAUTION]["weak"] is True and evidence[CAUTION]["trust"] == "caution"
    assert set(body["memories"]) == {item["id"] for item in body["evidence"]}
    assert body["citations"] and all(c.startswith("turn-") for c in body["citations"])
    assert set(body["evidence"][0]) >= {"id", "text", "confidence", "effective_confidence", "weak"}


async def test_another_tenants_memories_never_appear(reflect_client) -> None:
    http = await reflect_client()
    acme = (await http.post("/v1/reflect", json=QUESTION, headers=KEY)).json()
    assert FOREIGN not in acme["answer"]
    assert FOREIGN not in [item["text"] for item in acme["evidence"]]
    other = (await http.post("/v1/reflect", json=QUESTION, headers=OTHER)).json()
    assert [item["text"] for item in other["evidence"]] == [FOREIGN]
    assert "peanuts" not in other["answer"]


async def test_no_recalled_memory_says_so(reflect_client) -> None:
    http = await reflect_client()
    response = await http.post(
        "/v1/reflect", json={"user_id": "nobody", "question": "Where do I live?"}, headers=KEY
    )
    body = response.json()
    assert body["answer"] == "I have no memory about that."
    assert body["memories"] == [] and body["evidence"] == [] and body["citations"] == []


async def test_reflect_needs_a_key_and_a_valid_body(reflect_client) -> None:
    http = await reflect_client()
    assert (await http.post("/v1/reflect", json=QUESTION)).status_code == 401
    bad = await http.post("/v1/reflect", json={"user_id": "u1", "question": ""}, headers=KEY)
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_request"
    unknown = await http.post("/v1/reflect", json={**QUESTION, "tenant_id": "other"}, headers=KEY)
    assert unknown.status_code == 422


async def _snapshot(store) -> dict[str, list]:
    """Every row of the memory, job and outbox tables (access counters aside: recall's bookkeeping)."""
    memory_columns = [c for c in tables.memories.c if c.name not in {"access_count", "last_accessed"}]
    async with store._engine.connect() as connection:
        return {
            "memories": sorted(map(tuple, await connection.execute(sa.select(*memory_columns)))),
            "jobs": sorted(map(tuple, await connection.execute(sa.select(tables.jobs)))),
            "outbox": sorted(map(tuple, await connection.execute(sa.select(tables.outbox)))),
        }


async def test_reflect_never_writes_memory(reflect_client, store, publisher) -> None:
    http = await reflect_client()
    before = await _snapshot(store)
    for question in ("What am I allergic to?", "Remember that I love hiking.", "Where do I live?"):
        assert (
            await http.post("/v1/reflect", json={"user_id": "u1", "question": question}, headers=KEY)
        ).status_code == 200
    assert await _snapshot(store) == before
    assert publisher.batches == []
