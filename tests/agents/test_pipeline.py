"""The write pipeline without a broker: real SQL (both backends), real Qdrant Edge, the real model.

Only the producer is an in-memory recorder here; the live tests (tests/integration) run the same
pipeline behind a real broker.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime

import pytest
from projection import projector_of
from recording_producer import RecordingProducer

from agents.pipeline import WritePipeline
from beliefs.episodes import episode_id_for
from beliefs.records import DeadLetter, JobState, Role, Trust, job_id_for
from embedding.embedder import OnnxMiniLmEmbedder, load_default_embedder
from embedding.episode_vectors import EpisodeTexts
from embedding.errors import EmbedderUnavailableError
from reading.decode import RawTurn
from reading.episode_text import SessionTails
from reading.extract.rules import RulesExtractor
from sinks.recall import RecallScope
from sinks.sql.store import SqlMemoryStore
from sinks.vectors.edge import EdgeVectorIndex
from streams.settings import Settings


class ExtractorFailingOn(RulesExtractor):
    """The rules extractor, except that any batch holding `marker` raises (a poison turn)."""

    def __init__(self, marker: str) -> None:
        super().__init__()
        self.marker = marker

    async def extract(self, turns):
        if any(self.marker in turn.text for turn in turns):
            raise RuntimeError("extractor choked")
        return await super().extract(turns)


class EmbedderFailingOn:
    """The real embedder, except that any call holding `marker` raises."""

    def __init__(self, inner: OnnxMiniLmEmbedder, marker: str) -> None:
        self.inner, self.marker = inner, marker
        self.dim, self.model_id = inner.dim, inner.model_id

    def embed(self, texts):
        return self.inner.embed(texts)

    async def aembed(self, texts):
        if any(self.marker in text for text in texts):
            raise RuntimeError("model choked")
        return await self.inner.aembed(texts)

    def close(self) -> None:
        pass


@pytest.fixture
async def sinks(sql_url: str, tmp_path) -> AsyncIterator[tuple[SqlMemoryStore, EdgeVectorIndex]]:
    store = SqlMemoryStore(sql_url)
    vectors = EdgeVectorIndex(tmp_path / "vectors")
    await store.setup()
    await vectors.setup()
    try:
        yield store, vectors
    finally:
        await vectors.close()
        await store.close()


def pipeline_of(
    sinks, tmp_path, *, extractor=None, embedder=None, **settings_
) -> tuple[WritePipeline, RecordingProducer]:
    store, vectors = sinks
    producer = RecordingProducer()
    settings = Settings(data_dir=tmp_path, **settings_)
    return (
        WritePipeline(
            settings,
            store,
            projector_of(store, vectors),
            embedder or load_default_embedder(),
            extractor or RulesExtractor(),
            producer,
        ),
        producer,
    )


def raw(tenant: str, turn_id: str, text: str, user: str = "ana", role: str = "user") -> RawTurn:
    value = {
        "tenant_id": tenant, "user_id": user, "session_id": "s1", "turn_id": turn_id, "role": role,
        "text": text, "ts": datetime(2026, 3, 1, 12, tzinfo=UTC).isoformat(),
    }
    return RawTurn(json.dumps(value).encode(), f"{tenant}:{user}".encode(), "beliefstream.turns", 0, 0)


async def job_states(store: SqlMemoryStore, tenant: str, turn_ids: Sequence[str]) -> dict[str, JobState]:
    jobs = {turn_id: await store.get_job(tenant, job_id_for(tenant, turn_id)) for turn_id in turn_ids}
    return {turn_id: job.state for turn_id, job in jobs.items() if job is not None}


async def test_a_batch_is_read_embedded_and_written_to_both_sinks(sinks, tmp_path, tenant: str) -> None:
    pipeline, producer = pipeline_of(sinks, tmp_path)
    store, vectors = sinks
    batch = [
        raw(tenant, "t1", "I work at Acme Corp as a data engineer."),
        raw(tenant, "t2", "thanks!"),
        raw(tenant, "t3", "I'm allergic to peanuts."),
        RawTurn(b"{not json", b"k", "beliefstream.turns", 0, 3),
    ]
    report = await pipeline.persist(await pipeline.prepare(batch))

    assert (report.received, report.rejected, report.skipped) == (4, 1, 1)
    assert report.inserted >= 2
    states = await job_states(store, tenant, ["t1", "t2", "t3"])
    assert states == {"t1": JobState.DONE, "t2": JobState.SKIPPED, "t3": JobState.DONE}
    memories, _ = await store.list_memories(tenant, "ana")
    episodes, _ = await store.list_episodes(tenant, "ana")
    assert sorted(e.turn_id for e in episodes) == ["t1", "t3"]  # "thanks!" says nothing worth keeping
    assert report.episodes == 2
    await pipeline.projector.drain()  # the index follows the SQL outbox
    assert await vectors.count(tenant) == len(memories) + len(episodes)
    kinds = [json.loads(record.value)["kind"] for record in producer.on(pipeline.settings.events_topic)]
    assert (kinds.count("created"), kinds.count("episode_created")) == (len(memories), 2)
    assert len(memories) >= 2
    (letter,) = producer.on(pipeline.settings.dlq_topic)
    assert DeadLetter.model_validate_json(letter.value).reason == "invalid_json"


async def test_each_memory_is_filed_under_the_topic_a_recall_scopes_by(sinks, tmp_path, tenant: str) -> None:
    """Seed 000: topic is the namespace of retrieval, so a deploy routine is tech (not health for its
    "run"), a described employer is work with its slot, and a morning run is health."""
    pipeline, _ = pipeline_of(sinks, tmp_path)
    store, _ = sinks
    batch = [
        raw(tenant, "t1", "When I deploy, I run the tests, then tag the release and push."),
        raw(tenant, "t2", "I work at a small design agency."),
        raw(tenant, "t3", "I run 5k every morning before work."),
    ]
    await pipeline.persist(await pipeline.prepare(batch))
    memories, _ = await store.list_memories(tenant, "ana")
    by_turn = {memory.source_turn_ids[0]: memory for memory in memories}
    assert by_turn["t1"].topic == "tech" and by_turn["t1"].type.value == "procedure"
    employer = by_turn["t2"]
    assert (employer.topic, employer.attribute, employer.value) == ("work", "works_at", "small design agency")
    assert by_turn["t3"].topic == "health"


async def test_a_replayed_batch_changes_nothing(sinks, tmp_path, tenant: str) -> None:
    pipeline, _ = pipeline_of(sinks, tmp_path)
    store, _ = sinks
    batch = [raw(tenant, "t1", "I live in Lisbon."), raw(tenant, "t2", "I prefer Python over Java.")]
    await pipeline.persist(await pipeline.prepare(batch))
    before, _ = await store.list_memories(tenant, "ana")

    again = await pipeline.persist(await pipeline.prepare(batch))

    assert again.replayed == 2 and again.inserted == 0
    after, _ = await store.list_memories(tenant, "ana")
    assert [m.id for m in after] == [m.id for m in before] and len(before) == 2


@pytest.mark.parametrize("failing", ["extractor", "embedder"])
async def test_a_poison_turn_goes_to_the_dlq_and_the_rest_of_its_batch_is_written(
    sinks, tmp_path, tenant: str, failing: str
) -> None:
    marker = "Zanzibar"
    kwargs = (
        {"extractor": ExtractorFailingOn(marker)}
        if failing == "extractor"
        else {"embedder": EmbedderFailingOn(load_default_embedder(), marker)}
    )
    pipeline, producer = pipeline_of(sinks, tmp_path, **kwargs)
    store, _ = sinks
    batch = [raw(tenant, "t1", "I live in Lisbon."), raw(tenant, "t2", f"I live in {marker}."),
             raw(tenant, "t3", "I work at Globex.")]

    report = await pipeline.persist(await pipeline.prepare(batch))

    assert report.failed == 1
    states = await job_states(store, tenant, ["t1", "t2", "t3"])
    assert states == {"t1": JobState.DONE, "t2": JobState.FAILED, "t3": JobState.DONE}
    (letter,) = producer.on(pipeline.settings.dlq_topic)
    dead = DeadLetter.model_validate_json(letter.value)
    assert dead.reason == "processing_error" and marker in dead.raw


async def test_turns_their_users_erasure_overtook_are_counted_never_kept_nor_dead_lettered(
    sinks, tmp_path, tenant: str
) -> None:
    """In the broker when the user was erased: no row, no event, and no DLQ record with the text,
    not even for the turn that fails processing; the erased user's later turn and others' are written."""
    marker = "Zanzibar"
    pipeline, producer = pipeline_of(sinks, tmp_path, extractor=ExtractorFailingOn(marker))
    store, _ = sinks
    before = (await store.erase_user(tenant, "gone")).erased_at.timestamp() - 1
    after = before + 3600

    def at(record: RawTurn, timestamp: float) -> RawTurn:
        return dataclasses.replace(record, timestamp=timestamp)

    batch = [
        at(raw(tenant, "t1", "I live in Lisbon.", user="gone"), before),
        at(raw(tenant, "t2", f"I live in {marker}.", user="gone"), before),  # fails processing
        at(raw(tenant, "t3", "I work at Globex.", user="stays"), before),
        at(raw(tenant, "t4", "I work at Initech.", user="gone"), after),  # the user came back
    ]

    report = await pipeline.persist(await pipeline.prepare(batch))

    assert report.erased == 2 and report.failed == 0
    assert producer.on(pipeline.settings.dlq_topic) == []
    assert await job_states(store, tenant, ["t1", "t2", "t3", "t4"]) == {"t3": JobState.DONE, "t4": JobState.DONE}
    memories, _ = await store.list_memories(tenant, "gone")
    assert memories and all(m.source_turn_ids == ["t4"] for m in memories)
    events = [record.value.decode() for record in producer.on(pipeline.settings.events_topic)]
    assert events and not [e for e in events if "Lisbon" in e or marker in e]


async def test_records_that_never_became_turns_are_not_dead_lettered_after_their_users_erasure(
    sinks, tmp_path, tenant: str
) -> None:
    """A record that fails to decode but names its user keeps the user's words; dead-lettered after
    the user's erasure, they would outlive it on the DLQ topic. Accepted before: dropped and counted;
    accepted after (the user came back) or another user's: dead-lettered as ever."""
    pipeline, producer = pipeline_of(sinks, tmp_path)
    store, _ = sinks
    before = (await store.erase_user(tenant, "gone")).erased_at.timestamp() - 1
    after = before + 3600

    def malformed(turn_id: str, user: str, timestamp: float | None) -> RawTurn:
        record = raw(tenant, turn_id, f"My passport number is 12345, turn {turn_id}.", user=user, role="narrator")
        return dataclasses.replace(record, timestamp=timestamp)

    batch = [
        malformed("m1", "gone", before),
        malformed("m2", "gone", None),  # no time: it cannot show it came after the erasure
        malformed("m3", "gone", after),
        malformed("m4", "stays", before),
    ]

    report = await pipeline.persist(await pipeline.prepare(batch))

    assert report.erased == 2
    letters = [DeadLetter.model_validate_json(r.value) for r in producer.on(pipeline.settings.dlq_topic)]
    assert sorted(json.loads(letter.raw)["turn_id"] for letter in letters) == ["m3", "m4"]


async def test_a_discarded_batch_stops_its_embedding_and_writes_nothing(sinks, tmp_path, tenant: str) -> None:
    pipeline, producer = pipeline_of(sinks, tmp_path)
    store, _ = sinks
    prepared = await pipeline.prepare([raw(tenant, f"t{i}", f"I live in city number {i}.") for i in range(50)])
    embedding = prepared.read.embedding

    pipeline.discard(prepared)
    await asyncio.sleep(0)

    assert embedding.cancelled() or embedding.done()
    assert await job_states(store, tenant, ["t1"]) == {}
    assert producer.records == []


class EmbedderDownOnce:
    """The real embedder behind an outage: the first call finds it unavailable."""

    def __init__(self, inner: OnnxMiniLmEmbedder) -> None:
        self.inner, self.calls = inner, 0
        self.dim, self.model_id = inner.dim, inner.model_id

    def embed(self, texts):
        return self.inner.embed(texts)

    async def aembed(self, texts):
        self.calls += 1
        if self.calls == 1:
            raise EmbedderUnavailableError("the embedding process stopped")
        return await self.inner.aembed(texts)

    def close(self) -> None:
        pass


async def test_an_embedder_outage_is_waited_out_not_turned_into_failed_turns(sinks, tmp_path, tenant: str) -> None:
    embedder = EmbedderDownOnce(load_default_embedder())
    pipeline, producer = pipeline_of(sinks, tmp_path, embedder=embedder)
    pipeline.settings = pipeline.settings.model_copy(update={"sink_retry_initial_s": 0.01})
    store, _ = sinks

    report = await pipeline.persist(await pipeline.prepare([raw(tenant, "t1", "I live in Lisbon.")]))

    assert embedder.calls == 2 and report.failed == 0
    assert await job_states(store, tenant, ["t1"]) == {"t1": JobState.DONE}
    assert producer.on(pipeline.settings.dlq_topic) == []


async def test_turns_without_a_memory_still_leave_episodes_kept_clean(sinks, tmp_path, tenant: str) -> None:
    """A question and an assistant's answer yield no memory but are kept as said; a secret is
    redacted before the episode is written; content-free text is not kept."""
    pipeline, _ = pipeline_of(sinks, tmp_path)
    store, vectors = sinks
    batch = [
        raw(tenant, "q", "What should I cook tonight with the leftover rice?"),
        raw(tenant, "a", "You could make a mushroom risotto with the leftover rice.", role="assistant"),
        raw(tenant, "p", "My password is hunter2 and I live in Porto."),
        raw(tenant, "k", "ok 👍"),
        raw(tenant, "m", "I'm allergic to peanuts."),
    ]
    await pipeline.persist(await pipeline.prepare(batch))

    question = await store.get_job(tenant, job_id_for(tenant, "q"))
    assert (question.state, question.reason, question.memory_ids) == (JobState.SKIPPED, "question_without_disclosure", [])
    assert question.episode_id == episode_id_for(tenant, "q")
    answer = await store.get_episode(tenant, episode_id_for(tenant, "a"))
    assert (answer.role, answer.trust, answer.memory_ids) == (Role.ASSISTANT, Trust.CAUTION, [])
    porto = await store.get_episode(tenant, episode_id_for(tenant, "p"))
    assert "hunter2" not in porto.text and "[REDACTED:password]" in porto.text
    allergy = await store.get_episode(tenant, episode_id_for(tenant, "m"))
    assert allergy.memory_ids == (await store.get_job(tenant, job_id_for(tenant, "m"))).memory_ids != []
    assert await store.get_episode(tenant, episode_id_for(tenant, "k")) is None
    assert (await store.get_job(tenant, job_id_for(tenant, "k"))).episode_id is None

    await pipeline.projector.drain()
    scope = RecallScope(tenant, "ana")
    query = pipeline.embedder.embed(["what should I cook tonight?"])[0]
    episode_hits = await vectors.search(query, scope.vector_filter(kinds=("episode",)), 10)
    memory_hits = await vectors.search(query, scope.vector_filter(), 10)
    episode_ids = {episode_id_for(tenant, turn_id) for turn_id in "qapm"}
    assert {hit.id for hit in episode_hits} == episode_ids
    assert episode_hits[0].id == episode_id_for(tenant, "q")
    assert memory_hits and not {hit.id for hit in memory_hits} & episode_ids


async def test_the_retention_setting_dates_each_episodes_expiry(sinks, tmp_path, tenant: str) -> None:
    pipeline, _ = pipeline_of(sinks, tmp_path, episode_retention_days=30)
    store, _ = sinks
    await pipeline.persist(await pipeline.prepare([raw(tenant, "r", "We spent the weekend in Sintra.")]))
    episode = await store.get_episode(tenant, episode_id_for(tenant, "r"))
    assert episode.expires_at == datetime(2026, 3, 31, 12, tzinfo=UTC)  # 30 days after it was said


async def test_the_episode_vector_setting_decides_how_a_reply_is_embedded(sinks, tmp_path, tenant: str) -> None:
    """joined (the default): the previous turn's line and the reply's embedded as one text; line_sum:
    the two lines embedded alone, the vectors summed. Each stored vector is the one its mode says."""
    store, vectors = sinks
    assert Settings.model_fields["episode_vector"].default == "joined"
    embedder = load_default_embedder()
    expected: dict[str, dict[str, object]] = {}
    for mode in ("joined", "line_sum", None):
        settings_ = {} if mode is None else {"episode_vector": mode}
        pipeline, _ = pipeline_of(sinks, tmp_path, embedder=embedder, **settings_)
        user = f"kim-{mode}"
        asked = raw(tenant, f"{user}-q", "Which instrument did you pick up this winter?", user=user, role="assistant")
        await pipeline.persist(await pipeline.prepare([asked]))  # the reply's context comes from an earlier batch
        reply = raw(tenant, f"{user}-r", "The cello, my neighbour teaches me.", user=user)
        await pipeline.persist(await pipeline.prepare([reply]))
        await pipeline.projector.drain()
        said = [await store.get_episode(tenant, episode_id_for(tenant, f"{user}-{n}")) for n in "qr"]
        hits = {}
        for way in ("joined", "line_sum"):
            texts = EpisodeTexts.of(said, SessionTails(), way)
            wanted = texts.vectors(embedder.embed(texts.texts()))[1]
            found = await vectors.search(wanted, RecallScope(tenant, user).vector_filter(kinds=("episode",)), 10)
            hits[way] = {hit.id: hit.score for hit in found}[episode_id_for(tenant, f"{user}-r")]
        expected[str(mode)] = hits
    for mode, own in (("joined", "joined"), ("line_sum", "line_sum"), ("None", "joined")):
        other = "line_sum" if own == "joined" else "joined"
        assert expected[mode][own] > 0.999, (mode, expected[mode])
        assert expected[mode][other] < 0.99, (mode, expected[mode])


async def test_a_short_reply_is_found_by_the_question_it_answers(sinks, tmp_path, tenant: str) -> None:
    """Its vector carries the turn before it in the session (even from an earlier batch); with
    `episode_context_sessions` 0 it carries its speaker only."""
    _, vectors = sinks
    found = {}
    for sessions in (10_000, 0):
        pipeline, _ = pipeline_of(sinks, tmp_path, episode_context_sessions=sessions)
        user = f"ana{sessions}"
        asked = raw(tenant, f"{user}-q", "So did you finally move to Lisbon?", user=user, role="assistant")
        await pipeline.persist(await pipeline.prepare([asked]))
        reply = raw(tenant, f"{user}-r", "Yes, last May.", user=user)
        await pipeline.persist(await pipeline.prepare([reply]))
        await pipeline.projector.drain()
        query = pipeline.embedder.embed(["when did I move to Lisbon?"])[0]
        hits = await vectors.search(query, RecallScope(tenant, user).vector_filter(kinds=("episode",)), 10)
        found[sessions] = {hit.id: hit.score for hit in hits}[episode_id_for(tenant, f"{user}-r")]
    assert found[10_000] > found[0] + 0.2  # alone, "Yes, last May." says nothing about Lisbon
