"""`beliefstream publish`: every line reaches the turns topic, keyed tenant:user; bad lines go as they are."""

from __future__ import annotations

import json

import pytest
from integration.harness import read_topic

from streams.publish import publish_file

pytestmark = pytest.mark.integration


async def test_publish_file_sends_every_line_keyed(settings, tmp_path):
    lines = [
        json.dumps({"turn_id": "t-1", "user_id": "u-1", "role": "user", "text": "I live in Oslo."}),
        json.dumps({"turn_id": "t-2", "tenant_id": "other", "user_id": "u-2", "role": "user", "text": "Hi"}),
        "{not json",
        "",
    ]
    path = tmp_path / "turns.jsonl"
    path.write_text("\n".join(lines) + "\n")
    result = await publish_file(path, settings, settings.broker, tenant="acme")
    assert (result.sent, result.unparsed) == (3, 1)
    records = await read_topic(settings, settings.turns_topic, expect=3)
    by_key = {key: value for key, value in records}
    assert json.loads(by_key[b"acme:u-1"])["tenant_id"] == "acme"  # --tenant fills a missing tenant
    assert json.loads(by_key[b"other:u-2"])["tenant_id"] == "other"  # and never overrides one
    assert by_key[None] == b"{not json"  # the pipeline sends it to the DLQ with the reason
