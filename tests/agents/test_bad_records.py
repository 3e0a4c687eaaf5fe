"""A bad record is one record: each hostile value is rejected with its reason, the rest flows.

Issue 12 bug 1: an escaped lone surrogate crashed `decode_turn` (UnicodeEncodeError) and metadata
nested 100k levels raised RecursionError, so the whole micro-batch was lost.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
from hostile_records import hostile_values
from projection import projector_of
from recording_producer import RecordingProducer

from agents.pipeline import WritePipeline
from beliefs.records import DeadLetter, JobState, job_id_for
from embedding.embedder import load_default_embedder
from reading.decode import RawTurn, Rejection, decode_turn
from reading.extract.rules import RulesExtractor
from sinks.sql.store import SqlMemoryStore
from sinks.vectors.edge import EdgeVectorIndex
from streams.settings import Settings

CASES = hostile_values("acme", "u-1", max_text_bytes=64 * 1024)


@pytest.mark.parametrize(("name", "value", "reason"), CASES, ids=[case[0] for case in CASES])
def test_every_hostile_value_is_one_rejection_with_its_reason(name: str, value: bytes, reason: str) -> None:
    decoded = decode_turn(RawTurn(value, b"acme:u-1", "beliefstream.turns", 1, 41), 64 * 1024)
    assert isinstance(decoded, Rejection)
    assert (decoded.reason, decoded.raw.offset) == (reason, 41)
    assert decoded.detail and "\ud800" not in decoded.detail


def test_the_issue_surrogate_value_is_rejected_not_raised() -> None:
    value = b'{"turn_id":"t","tenant_id":"a","user_id":"u","role":"user","text":"I like \\ud800 tea."}'
    decoded = decode_turn(RawTurn(value), 1024)
    assert isinstance(decoded, Rejection) and decoded.reason == "invalid_text"
    assert "lone surrogate" in decoded.detail and decoded.detail.startswith("text")


def test_paired_surrogates_are_ordinary_text() -> None:
    value = json.dumps({"turn_id": "t", "tenant_id": "a", "user_id": "u", "role": "user", "text": "I like 🍵."})
    decoded = decode_turn(RawTurn(value.encode()), 1024)  # ensure_ascii wrote \\ud83c\\udf75: a valid pair
    assert not isinstance(decoded, Rejection) and decoded.text == "I like 🍵."


class StoreRefusing(SqlMemoryStore):
    """The real store, except that a write holding `marker` raises a data error (as PostgreSQL may)."""

    marker = "REFUSE-ME"

    async def write(self, outcomes):
        if any(self.marker in o.turn.text and o.state is not JobState.FAILED for o in outcomes):
            raise ValueError("invalid byte sequence for this column")
        return await super().write(outcomes)


@pytest.fixture
async def sinks(sql_url: str, tmp_path) -> AsyncIterator[tuple[SqlMemoryStore, EdgeVectorIndex]]:
    store = StoreRefusing(sql_url)
    vectors = EdgeVectorIndex(tmp_path / "vectors")
    await store.setup()
    await vectors.setup()
    try:
        yield store, vectors
    finally:
        await vectors.close()
        await store.close()


def good(tenant: str, user: str, turn_id: str, text: str) -> RawTurn:
    value = {"tenant_id": tenant, "user_id": user, "turn_id": turn_id, "role": "user", "text": text,
             "ts": datetime(2026, 3, 1, 12, tzinfo=UTC).isoformat()}  # fmt: skip
    return RawTurn(json.dumps(value).encode(), f"{tenant}:{user}".encode(), "beliefstream.turns", 0, 0)


async def test_hostile_values_mixed_into_two_tenants_traffic_lose_nothing(sinks, tmp_path, tenant: str) -> None:
    store, vectors = sinks
    producer = RecordingProducer()
    settings = Settings(data_dir=tmp_path)
    pipeline = WritePipeline(settings, store, projector_of(store, vectors), load_default_embedder(), RulesExtractor(),
                             producer)  # fmt: skip
    other = f"{tenant}-b"
    hostile = hostile_values(tenant, "u-a", settings.max_turn_bytes)
    batch: list[RawTurn] = []
    for i, (_, value, _) in enumerate(hostile):
        batch.append(good(other, "u-b", f"b-{i}", f"I live in city number {i}."))
        batch.append(RawTurn(value, f"{tenant}:u-a".encode(), "beliefstream.turns", 0, i))
    batch.append(good(other, "u-b", "refused", f"I like {StoreRefusing.marker} tea."))

    report = await pipeline.persist(await pipeline.prepare(batch))

    states = [
        (await store.get_job(other, job_id_for(other, f"b-{i}"))).state for i in range(len(hostile))
    ]
    assert states == [JobState.DONE] * len(hostile)  # every good turn of the other tenant went through
    letters = [DeadLetter.model_validate_json(r.value) for r in producer.on(settings.dlq_topic)]
    assert [letter.reason for letter in letters[: len(hostile)]] == [reason for _, _, reason in hostile]
    assert letters[-1].reason == "write_error"  # the store refused one turn: that turn only
    assert "REFUSE-ME" in letters[-1].raw
    refused = await store.get_job(other, job_id_for(other, "refused"))
    assert refused.state is JobState.FAILED and "write_error" in refused.reason
    assert report.rejected == len(hostile)
