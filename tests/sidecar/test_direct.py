"""`POST /v1/memories`: the direct insert over the real store, a real Qdrant Edge index and the real embedder."""

from __future__ import annotations

import json

import pytest
import sqlalchemy as sa

from beliefs.records import Memory, MemoryState, Trust, Visibility
from sinks.sql.tables import jobs, outbox
from sinks.sql.vector_outbox import SqlVectorOutbox
from tests.sidecar.bodies import ACME, BOT, BOT_MANAGER, OTHER, active_hits, editor


async def test_insert_answers_201_with_the_stored_record_and_indexes_it(
    governed, store, edge_vectors, minilm
):
    response = await governed.post("/v1/memories", json=editor(source_turn_ids=["t-1"]), headers=ACME)

    assert response.status_code == 201, response.text
    record = Memory.model_validate(response.json())
    assert record == await store.get_memory("acme", record.id)
    assert (record.tenant_id, record.user_id, record.agent_id) == ("acme", "u-1", None)
    assert (record.state, record.trust, record.visibility) == (
        MemoryState.ACTIVE,
        Trust.TRUSTED,
        Visibility.USER,
    )
    assert record.source_turn_ids == ["t-1"]
    assert record.half_life_days == 365  # the attribute registry's half-life, as on the write path
    assert await active_hits(edge_vectors, minilm, "which editor does the user like?") == [record.id]
    assert not [p for p in await SqlVectorOutbox.of(store).pending_vectors() if p.memory.id == record.id]  # synced


async def test_insert_writes_no_job_and_a_created_event(governed, store):
    response = await governed.post("/v1/memories", json=editor(), headers=ACME)

    async with store._engine.connect() as conn:
        assert await conn.scalar(sa.select(sa.func.count()).select_from(jobs)) == 0
        [value] = (await conn.execute(sa.select(outbox.c.value))).scalars().all()
    event = json.loads(bytes(value))
    assert (event["kind"], event["memory_id"]) == ("created", response.json()["id"])


async def test_a_different_value_supersedes_and_the_old_point_follows(governed, store, edge_vectors, minilm):
    old = (await governed.post("/v1/memories", json=editor("vim"), headers=ACME)).json()

    response = await governed.post("/v1/memories", json=editor("helix"), headers=ACME)

    assert response.status_code == 201
    new = response.json()
    closed = await store.get_memory("acme", old["id"])
    assert closed.state is MemoryState.SUPERSEDED and closed.superseded_by == new["id"]
    query = "the user's editor"
    assert await active_hits(edge_vectors, minilm, query) == [new["id"]]
    assert old["id"] in await active_hits(edge_vectors, minilm, query, states=[MemoryState.SUPERSEDED])


async def test_a_retried_post_is_idempotent(governed, store, edge_vectors):
    first = await governed.post("/v1/memories", json=editor(), headers=ACME)
    again = await governed.post("/v1/memories", json=editor(), headers=ACME)

    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    memories, _ = await store.list_memories("acme", "u-1", state=None)
    assert len(memories) == 1
    assert await edge_vectors.count("acme") == 1


async def test_the_same_value_in_other_words_confirms_the_existing_memory(governed, store):
    first = (await governed.post("/v1/memories", json=editor(), headers=ACME)).json()
    body = editor(text="Vim is the user's editor of choice.", importance=0.95, source_turn_ids=["t-7"])

    response = await governed.post("/v1/memories", json=body, headers=ACME)

    assert response.status_code == 200
    confirmed = response.json()
    assert confirmed["id"] == first["id"]
    assert (confirmed["importance"], confirmed["source_turn_ids"]) == (0.95, ["t-7"])
    memories, _ = await store.list_memories("acme", "u-1", state=None)
    assert [m.id for m in memories] == [first["id"]]


async def test_memory_key_makes_the_id_and_refuses_reuse_for_another_claim(governed):
    first = await governed.post("/v1/memories", json=editor(memory_key="seed-1"), headers=ACME)
    again = await governed.post("/v1/memories", json=editor(memory_key="seed-1"), headers=ACME)
    reused = await governed.post(
        "/v1/memories", json=editor(memory_key="seed-1", text="The user likes vim a lot."), headers=ACME
    )

    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["id"] == first.json()["id"]
    assert reused.status_code == 409
    assert reused.json()["error"]["code"] == "conflict"


async def test_the_same_claim_for_two_users_is_two_memories(governed):
    mine = await governed.post("/v1/memories", json=editor(), headers=ACME)
    theirs = await governed.post("/v1/memories", json=editor(user_id="u-2"), headers=ACME)

    assert (mine.status_code, theirs.status_code) == (201, 201)
    assert mine.json()["id"] != theirs.json()["id"]


async def test_a_weak_or_assistant_claim_is_stored_with_less_trust(governed, store):
    await governed.post("/v1/memories", json=editor("vim"), headers=ACME)

    weak = (await governed.post("/v1/memories", json=editor("nano", confidence=0.3), headers=ACME)).json()
    said = (
        await governed.post("/v1/memories", json=editor("emacs", source_role="assistant"), headers=ACME)
    ).json()

    assert (weak["trust"], said["trust"]) == ("caution", "untrusted")
    memories, _ = await store.list_memories("acme", "u-1")
    assert sorted(m.value for m in memories) == ["emacs", "nano", "vim"]  # neither overturned vim


async def test_tenant_comes_from_the_key(governed, store):
    response = await governed.post("/v1/memories", json=editor(), headers=OTHER)

    assert response.json()["tenant_id"] == "other"
    assert await store.get_memory("acme", response.json()["id"]) is None
    refused = await governed.post("/v1/memories", json=editor(tenant_id="acme"), headers=OTHER)
    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "forbidden")


async def test_an_agent_bound_key_writes_only_as_its_agent(governed):
    refused = await governed.post("/v1/memories", json=editor(visibility="agent"), headers=BOT)
    own = await governed.post("/v1/memories", json=editor(visibility="agent"), headers=BOT_MANAGER)
    foreign = await governed.post("/v1/memories", json=editor(agent_id="other-bot"), headers=BOT_MANAGER)

    assert refused.status_code == 403  # a direct insert needs `manage`, which agent keys lack by default
    assert own.status_code == 201
    assert (own.json()["agent_id"], own.json()["visibility"]) == ("bot", "agent")
    assert foreign.status_code == 403


@pytest.mark.parametrize(
    "change",
    [
        {"confidence": 1.5},
        {"importance": None},
        {"type": "opinion"},
        {"text": "   "},
        {"text": ""},
        {"topic": "x" * 65},
        {"entity": None},
        {"attribute": None},
        {"trigger": {"action": "recommend"}},
        {"valid_from": "2026-05-01T00:00:00Z", "expires_at": "2026-04-01T00:00:00Z"},
        {"tenant": "typo"},
        {"source_turn_ids": [""]},
    ],
)
async def test_invalid_bodies_are_422_json(governed, change):
    body = {k: v for k, v in (editor() | change).items() if v is not None}

    response = await governed.post("/v1/memories", json=body, headers=ACME)

    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] == "invalid_request"


async def test_missing_confidence_is_refused_not_defaulted(governed):
    body = editor()
    del body["confidence"]

    response = await governed.post("/v1/memories", json=body, headers=ACME)

    assert response.status_code == 422
    assert "confidence" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    ("change", "status"),
    [
        ({"visibility": "agent"}, 400),  # an agent-private memory needs an agent
        ({"expires_at": "2020-01-01T00:00:00Z"}, 400),  # already over
    ],
)
async def test_bodies_the_key_or_the_clock_cannot_honour_are_400(governed, change, status):
    response = await governed.post("/v1/memories", json=editor() | change, headers=ACME)

    assert response.status_code == status
    assert response.json()["error"]["code"] == "bad_request"


async def test_invalid_json_and_no_key(governed):
    broken = await governed.post(
        "/v1/memories", content=b"{", headers=ACME | {"Content-Type": "application/json"}
    )
    anonymous = await governed.post("/v1/memories", json=editor())

    assert (broken.status_code, broken.json()["error"]["code"]) == (400, "invalid_json")
    assert anonymous.status_code == 401


async def test_without_an_embedder_the_route_is_not_mounted(client):
    response = await client.post("/v1/memories", json=editor(), headers=ACME)

    assert response.status_code in (404, 405)



async def test_a_direct_retraction_closes_the_belief_and_attributes_are_normalised(governed, store):
    old = (await governed.post("/v1/memories", json=editor("vim"), headers=ACME)).json()
    retraction = editor("Vim", text="The user no longer uses Vim as their editor.", polarity="negative")

    response = await governed.post("/v1/memories", json=retraction | {"attribute": "Preferred-Editor"}, headers=ACME)

    assert response.status_code == 201, response.text
    new = response.json()
    assert (new["attribute"], new["polarity"]) == ("preferred_editor", "negative")
    closed = await store.get_memory("acme", old["id"])
    assert closed.state is MemoryState.SUPERSEDED and closed.superseded_by == new["id"]
    assert (await governed.post("/v1/memories", json=editor(polarity="maybe"), headers=ACME)).status_code == 422
