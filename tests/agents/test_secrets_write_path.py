"""No secret of our corpus survives any write path: 0 in SQL (every table), vectors, events, the
DLQ, logs.

`tests/data/secrets_corpus.jsonl` holds 100+ secret forms we wrote (each line: the text and the
secret in it). Issue 12 bug 5: 9 of 25 forms were stored verbatim in trusted memories, and a
consolidation merge or a direct insert redacted nothing.
"""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
from projection import projector_of
from recording_producer import RecordingProducer

from agents.consolidate import consolidate
from agents.consolidate.merge import Merged
from agents.pipeline import WritePipeline
from beliefs.records import DeadLetter, Memory
from embedding.embedder import load_default_embedder
from reading.decode import RawTurn
from reading.extract.rules import RulesExtractor
from reading.secrets import redact_secrets
from sinks.base import VectorFilter, vector_payload
from sinks.sql.manage_store import MaintenanceStore
from sinks.sql.store import SqlMemoryStore
from sinks.sql.tables import metadata
from sinks.vectors.edge import EdgeVectorIndex
from streams.settings import Settings
from tests.agents.manage_helpers import seed, stored

CORPUS = [json.loads(line) for line in (Path(__file__).parents[1] / "data" / "secrets_corpus.jsonl").read_text().splitlines()]
# around each secret, words that do become memories, so a memory is written next to every secret
FRAMES = ["{}", "I love {food}. {}", "{} I'm allergic to {food}.", "I live in Berlin and I like {food}. {}"]
FOODS = ["sushi", "tacos", "ramen", "pho", "curry", "paella", "falafel", "pierogi", "risotto", "kimchi", "borscht"]


def test_the_corpus_is_large_and_every_form_is_redacted() -> None:
    assert len(CORPUS) >= 100 and len({row["text"] for row in CORPUS}) == len(CORPUS)
    leaks = [row["text"] for row in CORPUS if row["secret"] in redact_secrets(row["text"])[0]]
    assert leaks == []


async def everything_in_sql(store: SqlMemoryStore) -> str:
    """Every row of every table, as text: what any reader of the database could see."""
    dump = []
    async with store._engine.connect() as conn:
        for table in metadata.sorted_tables:
            for row in (await conn.execute(sa.select(table))).all():
                dump.extend(_readable(v) for v in row)
    return "\n".join(dump)


def _readable(value: object) -> str:
    if isinstance(value, bytes):  # event payloads are UTF-8 JSON; embeddings are float arrays, not text
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return ""
    return str(value)


def leaked(haystack: str) -> list[str]:
    """Secrets found in `haystack`; a short one (a PIN) only as a whole word, not inside an id."""
    return [
        row["secret"] for row in CORPUS
        if (row["secret"] in haystack if len(row["secret"]) > 6
            else re.search(rf"(?<![\w-]){re.escape(row['secret'])}(?![\w-])", haystack))
    ]  # fmt: skip


async def test_no_secret_reaches_sql_vectors_events_or_logs(sql_url, tmp_path, tenant, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    store = SqlMemoryStore(sql_url)
    vectors = EdgeVectorIndex(tmp_path / "vectors")
    await store.setup()
    await vectors.setup()
    embedder = load_default_embedder()
    producer = RecordingProducer()
    projector = projector_of(store, vectors)
    pipeline = WritePipeline(Settings(data_dir=tmp_path), store, projector, embedder, RulesExtractor(), producer)
    ts = datetime(2026, 3, 1, 12, tzinfo=UTC).isoformat()
    raws = []
    for i, row in enumerate(CORPUS):
        text = FRAMES[i % len(FRAMES)].format(row["text"], food=FOODS[i % len(FOODS)])
        value = {"tenant_id": tenant, "user_id": "ana", "turn_id": f"s-{i}", "role": "user", "text": text, "ts": ts}
        raws.append(RawTurn(json.dumps(value).encode(), f"{tenant}:ana".encode(), "beliefstream.turns", 0, i))
    rejected = rejected_records(tenant, ts, offset=len(raws))  # issue 25: the DLQ keeps no secret either
    raws += rejected
    try:
        for start in range(0, len(raws), 32):
            await pipeline.persist(await pipeline.prepare(raws[start : start + 32]))
        memories, _ = await store.list_memories(tenant, "ana", limit=1000)
        assert len(memories) >= len(FOODS)  # the frames' own facts were stored beside the secrets

        assert leaked(await everything_in_sql(store)) == []
        await projector.drain()
        [query] = await embedder.aembed(["password card key token account"])
        hits = await vectors.search(query.tolist(), VectorFilter(tenant, "ana"), limit=1000)
        assert {h.id for h in hits} <= {m.id for m in memories}
        assert leaked(json.dumps([vector_payload(m) for m in memories], default=str)) == []  # what points carry
        letters = [DeadLetter.model_validate_json(r.value) for r in producer.on("beliefstream.turns.dlq")]
        assert len(letters) == len(rejected) and all(letter.redacted for letter in letters)
        assert leaked("\n".join(r.value.decode() for r in producer.records)) == []  # events and dead letters
        assert leaked("\n".join((r.key or b"").decode(errors="replace") for r in producer.records)) == []
        assert leaked(caplog.text) == []
    finally:
        await vectors.close()
        await store.close()


def rejected_records(tenant: str, ts: str, offset: int) -> list[RawTurn]:
    """Each secret of the corpus in a record the pipeline rejects: a role that does not exist (the
    issue's case), a field past its bounds, a value cut short (not JSON), a secret written with JSON
    escapes, a secret in metadata, a secret in a key of the document; every other record also
    carries its secret in its Kafka key."""
    raws = []
    for i, row in enumerate(CORPUS):
        base = {"tenant_id": tenant, "user_id": "ana", "turn_id": f"r-{i}", "text": row["text"], "ts": ts}
        form = i % 6
        if form == 0:
            value = json.dumps(base | {"role": "customer"}).encode()
        elif form == 1:
            value = json.dumps(base | {"role": "user", "session_id": "s" * 300}).encode()
        elif form == 2:
            value = json.dumps(base | {"role": "user"}).encode()[:-2]
        elif form == 3:
            value = json.dumps(base | {"role": "root"}, ensure_ascii=False).encode().replace(b"1", b"\\u0031")
        elif form == 4:
            value = json.dumps(base | {"role": "bot", "metadata": {"note": row["text"]}, "text": "hi"}).encode()
        else:
            value = json.dumps(base | {"role": "admin", row["text"]: 1, "text": "hi"}).encode()
        key = f"{tenant}:ana" if i % 2 else f"{tenant}:{row['text']}"  # a producer that put the text in its key
        raws.append(RawTurn(value, key.encode(), "beliefstream.turns", 0, offset + i))
    return raws


class EchoingMerger:
    """A merger that writes a secret into the canonical text, as a model echoing its input might."""

    name = "echo"

    def __init__(self, secret_text: str) -> None:
        self.secret_text = secret_text

    async def merge(self, context) -> Merged:
        return Merged(f"{context.memories[0].text} {self.secret_text}", self.name)


async def test_a_consolidation_merge_never_stores_a_secret(store, tenant) -> None:
    at = datetime(2026, 5, 1, tzinfo=UTC)
    rows = [
        Memory(id=f"{tenant}-{i}", tenant_id=tenant, user_id="u1", text=text, type="preference", topic="work",
               importance=0.5, confidence=0.9, source_turn_ids=[f"t{i}"], created_at=at, valid_from=at)
        for i, text in enumerate(["User prefers Python.", "User prefers Python."])
    ]  # fmt: skip
    embedder = load_default_embedder()
    await seed(store, list(zip(rows, embedder.embed([m.text for m in rows]).tolist(), strict=True)))
    secret = next(row for row in CORPUS if row["kind"] == "card_number")

    diff = await consolidate(MaintenanceStore.of(store), None, embedder, tenant, "work", "u1",
                             dry_run=False, merger=EchoingMerger(secret["text"]))  # fmt: skip

    assert len(diff.groups) == 1 and secret["secret"] not in diff.groups[0].canonical_text
    assert "[REDACTED:card_number]" in diff.groups[0].canonical_text
    assert not any(secret["secret"] in m.text for m in (await stored(store, tenant)).values())


@pytest.mark.parametrize("row", CORPUS[::9], ids=lambda row: row["kind"])
def test_redaction_keeps_the_words_around_the_secret(row) -> None:
    out, kinds = redact_secrets(f"Before. {row['text']} After.")
    assert kinds and out.startswith("Before. ") and out.endswith(" After.")
