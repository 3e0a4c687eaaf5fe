"""Every field bounded over HTTP: bad text or an oversized field is a 4xx naming it, and nothing is written.

Issue 12 bug 4: a lone surrogate in `text` was a 500; in `metadata.speaker` the job was already
written and stayed `queued` forever. Bug 7: a 100 KB `metadata.speaker` became a 100 KB memory text.
"""

from __future__ import annotations

import json

import pytest
import sqlalchemy as sa

from beliefs.bounds import MAX_METADATA_DEPTH, MAX_SPEAKER_CHARS, MAX_TRIGGER_ITEMS
from sinks.sql.tables import jobs
from tests.sidecar.bodies import ACME, editor

JSON_ACME = {**ACME, "Content-Type": "application/json"}


def turn(**fields) -> dict:
    return {"turn_id": "t-1", "user_id": "u-1", "role": "user", "text": "I like tea.", **fields}


async def job_count(store) -> int:
    async with store._engine.connect() as conn:
        return await conn.scalar(sa.select(sa.func.count()).select_from(jobs))


def raw_json(document: dict, replace: dict[str, str]) -> bytes:
    """`document` as JSON with placeholders swapped for raw escapes (json.dumps cannot write a lone one)."""
    text = json.dumps(document)
    for placeholder, escape in replace.items():
        text = text.replace(placeholder, escape)
    return text.encode()


@pytest.mark.parametrize(
    ("body", "where"),
    [
        pytest.param(raw_json(turn(text="I like @ tea."), {"@": "\\ud800"}), "body.text", id="text"),
        pytest.param(raw_json(turn(metadata={"speaker": "Bob@"}), {"@": "\\ud800"}), "body.metadata.speaker",
                     id="speaker"),
        pytest.param(raw_json(turn(metadata={"k@": 1}), {"@": "\\udc00"}), "body.metadata", id="metadata-key"),
        pytest.param(raw_json({"turns": [turn(), turn(turn_id="t-2", text="@")]}, {"@": "\\udfff"}),
                     "body.turns[1].text", id="second-of-batch"),
    ],
)  # fmt: skip
async def test_lone_surrogates_are_422_and_no_job_is_queued(client, store, publisher, body, where):
    response = await client.post("/v1/retain", content=body, headers=JSON_ACME)

    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_request"
    assert where in error["message"] and "lone surrogate" in error["message"]
    assert await job_count(store) == 0
    assert publisher.batches == []


async def test_a_paired_surrogate_escape_is_ordinary_text(client, publisher):
    body = raw_json(turn(text="I like @ tea."), {"@": "\\ud83c\\udf75"})
    response = await client.post("/v1/retain", content=body, headers=JSON_ACME)
    assert response.status_code == 202
    assert publisher.turns[0].text == "I like 🍵 tea."


@pytest.mark.parametrize(
    ("fields", "mentions"),
    [
        pytest.param({"metadata": {"speaker": "B" * 10_000}}, f"the limit is {MAX_SPEAKER_CHARS}", id="speaker-10k"),
        pytest.param({"metadata": {"speaker": ["Bob"]}}, "metadata.speaker must be a string", id="speaker-list"),
        pytest.param({"metadata": json.loads('{"a":' * (MAX_METADATA_DEPTH + 1) + "1" + "}" * (MAX_METADATA_DEPTH + 1))},
                     "nested more than", id="deep-metadata"),
        pytest.param({"metadata": {"k": list(range(2000))}}, "keys and items", id="many-items"),
        pytest.param({"metadata": {"blob": "x" * 20_000}}, "bytes as JSON", id="big-metadata"),
        pytest.param({"text": "I like \x00 tea."}, "NUL character", id="nul-text"),
        pytest.param({"user_id": "u\x00"}, "NUL character", id="nul-user"),
        pytest.param({"session_id": "s" * 300}, "at most 256 characters", id="long-session"),
    ],
)  # fmt: skip
async def test_fields_over_their_bounds_are_422_naming_them(client, store, publisher, fields, mentions):
    response = await client.post("/v1/retain", json=turn(**fields), headers=ACME)

    assert response.status_code == 422, response.text
    assert mentions in response.json()["error"]["message"]
    assert await job_count(store) == 0 and publisher.batches == []


async def test_metadata_nested_thousands_deep_is_a_4xx_not_a_500(client, store):
    deep = '{"a":' * 5000 + "1" + "}" * 5000
    body = f'{{"user_id": "u-1", "role": "user", "text": "hi", "metadata": {deep}}}'.encode()
    response = await client.post("/v1/retain", content=body, headers=JSON_ACME)
    assert 400 <= response.status_code < 500, response.text
    assert await job_count(store) == 0


async def test_a_speaker_at_the_limit_is_accepted(client, publisher):
    response = await client.post("/v1/retain", json=turn(metadata={"speaker": "B" * MAX_SPEAKER_CHARS}), headers=ACME)
    assert response.status_code == 202
    assert publisher.turns[0].speaker == "B" * MAX_SPEAKER_CHARS


async def test_recall_with_a_lone_surrogate_is_422_not_500(client):
    body = raw_json({"user_id": "u-1", "query": "tea @"}, {"@": "\\ud800"})
    response = await client.post("/v1/recall", content=body, headers=JSON_ACME)
    assert response.status_code == 422 and "body.query" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    "fields",
    [
        pytest.param({"text": "The user likes \x00 tea."}, id="nul-text"),
        pytest.param({"recall_semantics": "constraint",
                      "trigger": {f"k{i}": "v" for i in range(MAX_TRIGGER_ITEMS + 1)}}, id="trigger-items"),
        pytest.param({"recall_semantics": "constraint", "trigger": {"action": "x" * 1000}}, id="trigger-value"),
    ],
)  # fmt: skip
async def test_direct_insert_fields_are_bounded(governed, store, fields):
    response = await governed.post("/v1/memories", json=editor(**fields), headers=ACME)
    assert response.status_code == 422, response.text
    assert (await store.list_memories("acme", "u-1"))[0] == []


async def test_direct_insert_with_a_lone_surrogate_is_422(governed, store):
    body = raw_json(editor(text="The user likes @ tea."), {"@": "\\ud800"})
    response = await governed.post("/v1/memories", content=body, headers=JSON_ACME)
    assert response.status_code == 422
    assert (await store.list_memories("acme", "u-1"))[0] == []
