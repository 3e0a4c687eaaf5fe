"""Logs and traces of one retain → write → recall, run for real (the sidecar app over HTTP, the write
pipeline with the real embedder, SQLite and an Edge shard): spans name the steps with their tenant;
JSON log lines carry tenant, user digest and turn id; neither ever carries a secret, the text of a
turn or the user id, even when a step fails with an exception that quotes the turn."""

from __future__ import annotations

import io
import json
import logging
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path

import httpx
import pytest
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from projection import projector_of
from recording_producer import RecordingProducer

from agents.pipeline import WritePipeline
from beliefs.records import Claim, Turn
from embedding.embedder import load_default_embedder
from reading.decode import RawTurn
from reading.extract.rules import RulesExtractor
from sidecar.app import create_app
from sidecar.recall.service import RecallService
from sinks.sql.store import SqlMemoryStore
from sinks.vectors.edge import EdgeVectorIndex
from streams.logs import configure_logging, user_digest
from streams.settings import Settings
from streams.tracing import configure_tracing, disable_tracing
from tests.sidecar.conftest import RecordingPublisher

SECRET = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv"
SENTENCE = "My grandmother carved a violin from the pear tree behind the Cremona bakery"
USER = "zelda.quarrington@example.org"


class QuotingExtractor:
    """The rules, except that a turn about the violin fails with a message that quotes the turn
    (as a parser quoting its input would): the batch fails, then that turn alone."""

    name = "quoting"

    def __init__(self) -> None:
        self.rules = RulesExtractor()

    async def extract(self, turns: Sequence[Turn]) -> list[list[Claim]]:
        for turn in turns:
            if "violin" in turn.text:
                raise ValueError(f"cannot read {turn.text!r}")
        return await self.rules.extract(turns)


@pytest.fixture
def observed() -> Iterator[tuple[io.StringIO, InMemorySpanExporter]]:
    """JSON logs at DEBUG into a buffer (text withheld, the default), spans into memory."""
    logs, spans = io.StringIO(), InMemorySpanExporter()
    root = logging.getLogger()
    level = root.level
    handler = configure_logging("json", level=logging.DEBUG, stream=logs)
    configure_tracing(SimpleSpanProcessor(spans))
    try:
        yield logs, spans
    finally:
        disable_tracing()
        root.removeHandler(handler)
        root.setLevel(level)


@pytest.fixture
async def system(tmp_path: Path, tenant: str) -> AsyncIterator[tuple[httpx.AsyncClient, RecordingPublisher, WritePipeline]]:
    settings = Settings(data_dir=tmp_path, api_keys=f"key-t={tenant}")
    store = SqlMemoryStore(f"sqlite+aiosqlite:///{(tmp_path / 'memory.db').as_posix()}")
    vectors = EdgeVectorIndex(tmp_path / "vectors")
    await store.setup()
    await vectors.setup()
    embedder = load_default_embedder()
    publisher = RecordingPublisher()
    recall = RecallService(store, vectors, embedder)
    app = create_app(settings, store, publisher, vectors, embedder=embedder, recall=recall)
    pipeline = WritePipeline(settings, store, projector_of(store, vectors), embedder, QuotingExtractor(), RecordingProducer())
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sidecar") as http:
            yield http, publisher, pipeline
    finally:
        await recall.close()
        await vectors.close()
        await store.close()


async def test_one_retain_and_recall_are_traced_and_logged_without_text(observed, system, tenant: str) -> None:
    logs, spans = observed
    http, publisher, pipeline = system
    headers = {"Authorization": "Bearer key-t"}
    turns = [
        {"turn_id": "t-vim", "user_id": USER, "role": "user", "text": "I prefer vim over emacs for editing."},
        {"turn_id": "t-violin", "user_id": USER, "role": "user", "text": f"{SENTENCE}. My key is {SECRET}"},
    ]
    retained = await http.post("/v1/retain", json={"turns": turns}, headers=headers)
    assert retained.status_code == 202

    raws = [RawTurn(t.model_dump_json().encode(), t.key.encode(), "beliefstream.turns", 0, i)
            for i, t in enumerate(publisher.turns)]  # fmt: skip
    report = await pipeline.persist(await pipeline.prepare(raws))
    assert report.inserted >= 1 and report.dlq_reasons == {"processing_error": 1}

    recalled = await http.post("/v1/recall", json={"user_id": USER, "query": "which editor"}, headers=headers)
    assert recalled.status_code == 200 and recalled.json()["memories"]

    finished = spans.get_finished_spans()
    names = {span.name for span in finished}
    assert {"beliefstream.retain", "beliefstream.extract", "beliefstream.write", "beliefstream.sink",
            "beliefstream.recall"} <= names  # fmt: skip
    by_name = {span.name: span for span in finished}
    assert by_name["beliefstream.retain"].attributes["beliefstream.tenant_id"] == tenant
    assert by_name["beliefstream.recall"].attributes["beliefstream.tenant_id"] == tenant
    assert tenant in by_name["beliefstream.write"].attributes["beliefstream.tenant_ids"]
    failed = [span for span in finished if span.name == "beliefstream.extract" and not span.status.is_ok]
    assert failed and failed[0].status.description == "ValueError"  # the type, not the message
    exported = "".join(span.to_json() for span in finished)

    lines = [json.loads(line) for line in logs.getvalue().splitlines()]
    about_the_turn = [line for line in lines if line.get("turn_id") == "t-violin"]
    assert about_the_turn, "the failed turn is logged"
    for line in about_the_turn:
        assert line["tenant"] == tenant and line["user_digest"] == user_digest(tenant, USER)
    assert any("ValueError" in line.get("exception", "") for line in about_the_turn)

    for text in (exported, logs.getvalue()):
        for private in (SECRET, SENTENCE, "grandmother", "pear tree", USER, "zelda"):
            assert private not in text


def test_with_tracing_off_no_sdk_is_loaded_and_a_span_is_a_shared_null_context() -> None:
    code = (
        "import sys, agents.pipeline, sidecar.recall.service, sidecar.app\n"
        "from streams.tracing import span\n"
        "assert span('a') is span('b')\n"
        "assert not [m for m in sys.modules if m.startswith('opentelemetry.sdk')], 'SDK imported'\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
