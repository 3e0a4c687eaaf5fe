"""Bad retain bodies: every one is a JSON 4xx whose message says what to fix, and nothing is published."""

from __future__ import annotations

import json

import pytest

from sidecar.schemas import MAX_TURNS_PER_REQUEST

ACME = {"Authorization": "Bearer key-acme"}
JSON_ACME = {**ACME, "Content-Type": "application/json"}


def turn(i: int = 0, **fields) -> dict:
    return {"turn_id": f"t-{i}", "user_id": "u-1", "role": "user", "text": "hello", **fields}


def error_of(response) -> dict:
    assert response.headers["content-type"] == "application/json"
    return response.json()["error"]


@pytest.mark.parametrize(
    ("body", "mentions"),
    [
        pytest.param(turn(role="bot"), "'user', 'assistant', 'system' or 'tool'", id="unknown-role"),
        pytest.param({"user_id": "u-1", "role": "user"}, "text: Field required", id="missing-text"),
        pytest.param({"text": "hi", "role": "user"}, "user_id: Field required", id="missing-user"),
        pytest.param(turn(text=42), "text: Input should be a valid string", id="text-not-string"),
        pytest.param(turn(user_id=""), "user_id: String should have at least 1 character", id="empty-user"),
        pytest.param(turn(ts="yesterday"), "ts: Input should be a valid datetime", id="bad-ts"),
        pytest.param(turn(metadata=[1]), "metadata: Input should be a valid dictionary", id="metadata-list"),
        pytest.param(turn(agentid="bot"), "agentid: Extra inputs are not permitted", id="unknown-field"),
        pytest.param([turn()], "valid dictionary", id="bare-list"),
        pytest.param({"turns": []}, "turns: List should have at least 1 item", id="empty-turns"),
        pytest.param({"turns": "t-1"}, "turns: Input should be a valid list", id="turns-not-list"),
        pytest.param(
            {"turns": [turn(), {"role": "user"}]}, "turns.1.user_id: Field required", id="bad-batch"
        ),
    ],
)
async def test_invalid_bodies_are_422_naming_the_field(client, publisher, body, mentions):
    response = await client.post("/v1/retain", json=body, headers=ACME)

    assert response.status_code == 422
    error = error_of(response)
    assert error["code"] == "invalid_request"
    assert mentions in error["message"]
    assert response.json()["details"]  # one entry per problem, with its location
    assert publisher.batches == []


async def test_invalid_json_is_400(client, publisher):
    response = await client.post("/v1/retain", content=b'{"user_id": "u-1",', headers=JSON_ACME)

    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "invalid_json"
    assert "not valid JSON" in error["message"]
    assert publisher.batches == []


async def test_body_not_declared_as_json_is_415(client):
    response = await client.post("/v1/retain", content=json.dumps(turn()).encode(), headers=ACME)

    assert response.status_code == 415
    assert "application/json" in error_of(response)["message"]


async def test_empty_body_is_a_json_error(client):
    response = await client.post("/v1/retain", headers=JSON_ACME)

    assert response.status_code == 422
    assert error_of(response)["code"] == "invalid_request"


async def test_too_many_turns_is_refused(client, publisher):
    turns = [{"user_id": "u", "role": "user", "text": ""} for _ in range(MAX_TURNS_PER_REQUEST + 1)]

    response = await client.post("/v1/retain", json={"turns": turns}, headers=ACME)

    assert response.status_code == 422
    assert f"at most {MAX_TURNS_PER_REQUEST} items" in error_of(response)["message"]
    assert publisher.batches == []


async def test_the_maximum_number_of_turns_is_accepted(client, publisher):
    turns = [{"user_id": "u", "role": "user", "text": ""} for _ in range(MAX_TURNS_PER_REQUEST)]

    response = await client.post("/v1/retain", json={"turns": turns}, headers=ACME)

    assert response.status_code == 202
    assert len(response.json()["job_ids"]) == MAX_TURNS_PER_REQUEST


async def test_text_over_the_turn_limit_is_413_counting_utf8_bytes(client, settings, publisher):
    limit = settings.max_turn_bytes
    at_limit = "é" * (limit // 2)  # two bytes each
    over = at_limit + "e"

    accepted = await client.post("/v1/retain", json=turn(0, text=at_limit), headers=ACME)
    refused = await client.post("/v1/retain", json={"turns": [turn(1), turn(2, text=over)]}, headers=ACME)

    assert accepted.status_code == 202
    assert refused.status_code == 413
    error = error_of(refused)
    assert error["code"] == "payload_too_large"
    assert f"turns[1].text is {limit + 1} bytes" in error["message"]
    assert len(publisher.batches) == 1


async def test_body_over_the_limit_is_413_by_content_length(client, settings, publisher):
    body = json.dumps(turn(text="x" * settings.max_body_bytes)).encode()

    response = await client.post("/v1/retain", content=body, headers=JSON_ACME)

    assert response.status_code == 413
    error = error_of(response)
    assert error["code"] == "payload_too_large"
    assert str(settings.max_body_bytes) in error["message"]
    assert publisher.batches == []


async def test_body_over_the_limit_is_413_when_streamed_without_length(client, settings, publisher):
    chunk = b" " * 4096

    async def chunks():
        yield b'{"turns": ['
        for _ in range(settings.max_body_bytes // len(chunk) + 1):
            yield chunk
        yield b"]}"

    response = await client.post("/v1/retain", content=chunks(), headers=JSON_ACME)

    assert response.status_code == 413
    assert error_of(response)["code"] == "payload_too_large"
    assert publisher.batches == []


async def test_streamed_body_under_the_limit_reaches_the_route(client, publisher):
    payload = json.dumps(turn()).encode()

    async def chunks():
        yield payload[:10]
        yield payload[10:]

    response = await client.post("/v1/retain", content=chunks(), headers=JSON_ACME)

    assert response.status_code == 202
    assert len(publisher.turns) == 1
