"""Backfill through the Message Batches API against the local fake: the job is kept in SQL, a new
process (a restart) resumes and collects it, errored results take the fallback."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from beliefs.records import Claim, MemoryType, Role, Turn
from llm.message_batches import BatchExtraction
from llm.prompts import extract_memories as prompt
from llm.turn_context import OfferedBelief, TurnContext
from sinks.sql.extraction_batches import COLLECTED, SUBMITTED, SqlExtractionBatches
from sinks.sql.store import SqlMemoryStore
from tests.llm.fake_anthropic import FakeAnthropic, Reply, claude_settings, memory

TS = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
TURNS = [
    Turn(turn_id="t1", tenant_id="acme", user_id="u1", session_id="s1", role=Role.USER, text="I use pytest.", ts=TS),
    Turn(turn_id="t2", tenant_id="acme", user_id="u1", session_id="s1", role=Role.ASSISTANT, text="Which runner?", ts=TS + timedelta(minutes=1)),
    Turn(turn_id="t3", tenant_id="acme", user_id="u1", session_id="s1", role=Role.USER, text="xdist, always.", ts=TS + timedelta(minutes=2)),
    Turn(turn_id="t4", tenant_id="acme", user_id="u2", session_id="s9", role=Role.USER, text="I moved out of Berlin.", ts=TS),
]  # fmt: skip
BERLIN = OfferedBelief("mem-berlin", "The user lives in Berlin.", "user", "lives_in", "Berlin")


class Fallback:
    name = "rules-stub"

    async def extract(self, turns: Sequence[Turn]) -> list[list[Claim]]:
        return [[Claim(text=f"fallback: {t.text}", type=MemoryType.FACT, importance=0.5, confidence=0.5)] for t in turns]


async def beliefs_of_u2(turn: Turn) -> TurnContext:
    return TurnContext(beliefs=(BERLIN,) if turn.user_id == "u2" else ())


@pytest.fixture
async def jobs(tmp_path) -> AsyncIterator[SqlExtractionBatches]:
    store = SqlMemoryStore(f"sqlite+aiosqlite:///{tmp_path / 'memory.db'}")
    await store.setup()
    try:
        yield SqlExtractionBatches.of(store)
    finally:
        await store.close()


def batch_extraction(fake: FakeAnthropic, jobs: SqlExtractionBatches, **kwargs: Any) -> BatchExtraction:
    settings = claude_settings(fake.url, extractor="anthropic", anthropic_timeout_s=5.0)
    return BatchExtraction(settings, jobs, fallback=Fallback(), context=beliefs_of_u2, **kwargs)


async def test_a_job_survives_a_restart_and_is_collected_once(fake: FakeAnthropic, jobs: SqlExtractionBatches) -> None:
    fake.batch_polls = 2
    fake.script(
        Reply.memories(memory(value="pytest", turn=1), memory(attribute="test_runner", value="xdist", turn=2)),
        Reply.memories(memory(text="The user no longer lives in Berlin.", action="retract", belief="b1")),
    )
    first = batch_extraction(fake, jobs)
    try:
        job = await first.submit(TURNS, tenant_id="acme")
        assert job is not None and await first.poll(job) == SUBMITTED  # still in progress
    finally:
        await first.aclose()

    (batch,) = fake.batches.values()
    grouped, single = (item["params"] for item in batch["requests"])
    assert grouped["tool_choice"] == {"type": "tool", "name": prompt.TOOL_NAME}
    assert grouped["system"][-1]["cache_control"] == {"type": "ephemeral"}
    assert '<turn n="2"' in grouped["messages"][0]["content"] and "Which runner?" in grouped["messages"][0]["content"]
    assert "b1: The user lives in Berlin." in single["messages"][0]["content"]
    assert "mem-berlin" not in str(batch["requests"])

    # a new process: the job is found in SQL, polled to its end and collected
    second = batch_extraction(fake, jobs)
    try:
        (open_job,) = await jobs.open_jobs()
        assert open_job.id == job.id
        assert await second.poll(open_job) == "ended"
        (ended,) = await jobs.open_jobs()
        found, stats = await second.collect(ended, {t.turn_id: t for t in TURNS})
    finally:
        await second.aclose()
    assert [c.value for c in found["t1"]] == ["pytest"] and [c.value for c in found["t3"]] == ["xdist"]
    (retracted,) = found["t4"]
    assert (retracted.attribute, retracted.value, retracted.polarity.value) == ("lives_in", "Berlin", "negative")
    assert stats.succeeded == 2 and stats.fallbacks == 0
    assert await jobs.open_jobs() == []
    stored = await jobs.get(job.id)
    assert stored is not None and stored.state == COLLECTED and stored.counts["succeeded"] == 2
    assert stored.requests == {}  # no turn ids or beliefs kept once collected


async def test_an_errored_result_takes_the_fallback(fake: FakeAnthropic, jobs: SqlExtractionBatches) -> None:
    fake.script(Reply.error(500), Reply.memories())
    extraction = batch_extraction(fake, jobs)
    try:
        job = await extraction.submit(TURNS)
        assert job is not None and await extraction.poll(job) == "ended"
        found, stats = await extraction.collect(job, {t.turn_id: t for t in TURNS})
    finally:
        await extraction.aclose()
    assert [c.text for c in found["t1"]] == ["fallback: I use pytest."] and found["t4"] == []
    assert stats.fallbacks == 2


async def test_the_batched_extractor_resumes_the_job_a_crash_left_open(fake: FakeAnthropic, jobs: SqlExtractionBatches) -> None:
    from llm.message_batches import BatchedExtractor

    fake.batch_polls = 3
    fake.script(Reply.memories(memory(value="pytest", turn=1)), Reply.memories())
    crashed = batch_extraction(fake, jobs)
    try:
        await crashed.submit(TURNS)  # then the process died before collecting
    finally:
        await crashed.aclose()
    restarted = batch_extraction(fake, jobs)
    try:
        batched = BatchedExtractor(restarted, jobs, poll_s=0.01)
        claims = await batched.extract(TURNS)
    finally:
        await restarted.aclose()
    assert len(fake.batches) == 1  # resumed, not submitted again
    assert "(resumed)" in batched.seen[0]
    assert [[c.value for c in per_turn] for per_turn in claims] == [["pytest"], [], [], []]
    assert await jobs.open_jobs() == []
