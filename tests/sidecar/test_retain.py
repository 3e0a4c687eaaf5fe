"""`POST /v1/retain`: scope from the key, queued jobs readable at once, deterministic ids, 503 on outage."""

from __future__ import annotations

from datetime import UTC, datetime

from beliefs.records import job_id_for

ACME = {"Authorization": "Bearer key-acme"}
BOT = {"Authorization": "Bearer key-bot"}


def turn(turn_id: str | None = "t-1", **fields) -> dict:
    body = {"user_id": "u-1", "role": "user", "text": "I always use dark mode.", **fields}
    if turn_id is not None:
        body["turn_id"] = turn_id
    return body


async def test_single_turn_is_accepted_with_its_job_queued(client, publisher):
    response = await client.post(
        "/v1/retain", json=turn(session_id="s-9", metadata={"speaker": "Ann"}), headers=ACME
    )

    assert response.status_code == 202
    assert response.json() == {"job_ids": [job_id_for("acme", "t-1")]}
    [published] = publisher.turns
    assert (published.tenant_id, published.user_id, published.turn_id) == ("acme", "u-1", "t-1")
    assert (published.session_id, published.speaker, published.key) == ("s-9", "Ann", "acme:u-1")

    job = await client.get(f"/v1/jobs/{job_id_for('acme', 't-1')}", headers=ACME)

    assert job.status_code == 200
    body = job.json()
    assert body["job_id"] == job_id_for("acme", "t-1")
    assert (body["state"], body["memory_ids"], body["reason"]) == ("queued", [], None)
    assert set(body) == {"job_id", "state", "memory_ids", "reason", "episode_id", "created_at", "updated_at"}
    assert body["episode_id"] is None  # known once the turn is processed


async def test_batch_answers_job_ids_in_input_order(client, publisher):
    turns = [
        turn(f"t-{i}", text=f"turn {i}", role=role) for i, role in enumerate(["user", "assistant", "tool"])
    ]

    response = await client.post("/v1/retain", json={"turns": turns}, headers=ACME)

    assert response.status_code == 202
    job_ids = response.json()["job_ids"]
    assert job_ids == [job_id_for("acme", f"t-{i}") for i in range(3)]
    assert [t.turn_id for t in publisher.turns] == ["t-0", "t-1", "t-2"]
    for job_id in job_ids:
        job = await client.get(f"/v1/jobs/{job_id}", headers=ACME)
        assert job.json()["state"] == "queued"


async def test_retrying_the_same_post_gives_the_same_job_ids(client, publisher):
    body = {"turns": [turn("t-1"), turn("t-2")]}

    first = await client.post("/v1/retain", json=body, headers=ACME)
    second = await client.post("/v1/retain", json=body, headers=ACME)

    assert first.status_code == second.status_code == 202
    assert first.json() == second.json()
    assert len(publisher.batches) == 2  # published again: the pipeline deduplicates by turn id


async def test_missing_turn_id_and_ts_are_generated(client, publisher):
    before = datetime.now(UTC)

    response = await client.post("/v1/retain", json=turn(turn_id=None), headers=ACME)

    assert response.status_code == 202
    [published] = publisher.turns
    assert len(published.turn_id) == 32 and int(published.turn_id, 16) >= 0  # uuid4 hex
    assert response.json() == {"job_ids": [job_id_for("acme", published.turn_id)]}
    assert before <= published.ts <= datetime.now(UTC)


async def test_given_ts_is_kept_in_utc(client, publisher):
    response = await client.post("/v1/retain", json=turn(ts="2026-11-21T12:00:00+02:00"), headers=ACME)

    assert response.status_code == 202
    assert publisher.turns[0].ts == datetime(2026, 11, 21, 10, 0, tzinfo=UTC)


async def test_tenant_comes_from_the_key(client, publisher):
    same = await client.post("/v1/retain", json=turn(tenant_id="acme"), headers=ACME)
    other = await client.post("/v1/retain", json=turn("t-2", tenant_id="other"), headers=ACME)

    assert same.status_code == 202
    assert other.status_code == 403
    assert other.json()["error"]["code"] == "forbidden"
    assert "tenant_id" in other.json()["error"]["message"]
    assert [t.tenant_id for t in publisher.turns] == ["acme"]


async def test_one_foreign_tenant_in_a_batch_refuses_the_whole_batch(client, publisher):
    body = {"turns": [turn("t-1"), turn("t-2", tenant_id="other")]}

    response = await client.post("/v1/retain", json=body, headers=ACME)

    assert response.status_code == 403
    assert "turns[1]" in response.json()["error"]["message"]
    assert publisher.batches == []
    assert (await client.get(f"/v1/jobs/{job_id_for('acme', 't-1')}", headers=ACME)).status_code == 404


async def test_agent_bound_key_forces_its_agent(client, publisher):
    absent = await client.post("/v1/retain", json=turn("t-1"), headers=BOT)
    same = await client.post("/v1/retain", json=turn("t-2", agent_id="bot"), headers=BOT)
    other = await client.post("/v1/retain", json=turn("t-3", agent_id="intruder"), headers=BOT)

    assert (absent.status_code, same.status_code, other.status_code) == (202, 202, 403)
    assert "agent" in other.json()["error"]["message"]
    assert [(t.tenant_id, t.agent_id) for t in publisher.turns] == [("acme", "bot"), ("acme", "bot")]


async def test_unbound_key_keeps_the_body_agent(client, publisher):
    response = await client.post("/v1/retain", json=turn(agent_id="support-bot"), headers=ACME)

    assert response.status_code == 202
    assert publisher.turns[0].agent_id == "support-bot"


async def test_publisher_failure_is_503_and_the_retry_gets_the_same_ids(client, publisher):
    publisher.failing = True

    failed = await client.post("/v1/retain", json=turn("t-1"), headers=ACME)

    assert failed.status_code == 503
    assert failed.json()["error"]["code"] == "unavailable"
    job = await client.get(f"/v1/jobs/{job_id_for('acme', 't-1')}", headers=ACME)
    assert job.json()["state"] == "queued"  # left queued, not failed: the client retries

    publisher.failing = False
    retried = await client.post("/v1/retain", json=turn("t-1"), headers=ACME)

    assert retried.status_code == 202
    assert retried.json() == {"job_ids": [job_id_for("acme", "t-1")]}


async def test_duplicate_turn_ids_in_one_batch_are_refused(client, publisher):
    response = await client.post("/v1/retain", json={"turns": [turn("t-1"), turn("t-1")]}, headers=ACME)

    assert response.status_code == 400
    assert "t-1" in response.json()["error"]["message"]
    assert publisher.batches == []
