"""`POST /v1/memories` redacts like every write path: issue 12 bug 5 found it redacting nothing.

A secret in the memory's text or slot is refused with a message naming its kind (never echoing
it); a secret in the evidence is stored redacted.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.sidecar.bodies import ACME, editor

CORPUS = [json.loads(line) for line in (Path(__file__).parents[1] / "data" / "secrets_corpus.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("row", CORPUS[::5], ids=lambda row: row["kind"])
async def test_a_secret_in_the_text_is_refused_and_nothing_stored(governed, store, row):
    response = await governed.post("/v1/memories", json=editor(text=f"The user said: {row['text']}"), headers=ACME)

    assert response.status_code == 400, response.text
    message = response.json()["error"]["message"]
    assert "holds a secret" in message and row["secret"] not in message
    assert (await store.list_memories("acme", "u-1"))[0] == []


async def test_a_secret_in_the_value_is_refused(governed, store):
    body = editor(value="sk_live_4eC39HqLyjWDarjtT1zdp7dc", text="The user has a favourite editor.")
    response = await governed.post("/v1/memories", json=body, headers=ACME)
    assert response.status_code == 400 and "value holds a secret" in response.json()["error"]["message"]


async def test_a_secret_in_the_evidence_is_stored_redacted(governed, store):
    evidence = "I use vim. My pw is CorrectHorse99!"
    response = await governed.post("/v1/memories", json=editor(evidence=evidence), headers=ACME)

    assert response.status_code == 201, response.text
    [stored], _ = await store.list_memories("acme", "u-1")
    assert "CorrectHorse99!" not in stored.evidence and "[REDACTED:password]" in stored.evidence
