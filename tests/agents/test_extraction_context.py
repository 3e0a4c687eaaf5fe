"""Claude extraction's stored context, end to end: turns go through the real write path (rules,
SQL, episodes), then a later turn's request to the local Messages API fake carries its session's
earlier turns and the current beliefs recall's queries find for it."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from agents.extraction_context import StoredTurnContext
from agents.pipeline import WritePipeline
from beliefs.records import Polarity, Role, Turn
from llm.extractor import AnthropicExtractor
from reading.decode import RawTurn
from sidecar.recall.keywords import query_terms
from tests.llm.fake_anthropic import FakeAnthropic, Reply, claude_settings, memory

T0 = datetime(2026, 3, 1, 12, tzinfo=UTC)


def raw(tenant: str, n: int, text: str, role: str = "user", session: str = "s1") -> RawTurn:
    value = {
        "tenant_id": tenant, "user_id": "ana", "session_id": session, "turn_id": f"t{n}", "role": role,
        "text": text, "ts": (T0 + timedelta(minutes=n)).isoformat(),
    }  # fmt: skip
    return RawTurn(json.dumps(value).encode(), f"{tenant}:ana".encode(), "beliefstream.turns", 0, n)


async def test_a_later_turn_is_sent_with_its_session_and_the_beliefs_on_it(
    pipeline: WritePipeline, tenant: str, fake: FakeAnthropic
) -> None:
    await pipeline.persist(await pipeline.prepare([
        raw(tenant, 1, "I live in Lisbon."),
        raw(tenant, 2, "I'm allergic to peanuts."),
        raw(tenant, 3, "I use Emacs for everything.", session="s-old"),
        raw(tenant, 4, "Do you want me to look for flats in Porto or in Lisbon?", role="assistant"),
    ]))  # fmt: skip
    source = StoredTurnContext(pipeline.store, query_terms)
    now = Turn(turn_id="t9", tenant_id=tenant, user_id="ana", session_id="s1", role=Role.USER,
               text="Porto. I moved out of Lisbon last week.", ts=T0 + timedelta(minutes=9))  # fmt: skip

    context = await source(now)

    assert [(t.role, t.text) for t in context.preceding] == [
        (Role.USER, "I live in Lisbon."),
        (Role.USER, "I'm allergic to peanuts."),
        (Role.ASSISTANT, "Do you want me to look for flats in Porto or in Lisbon?"),
    ]
    lisbon = [b for b in context.beliefs if b.value and "lisbon" in b.value.lower()]
    assert lisbon and context.beliefs[0] == lisbon[0]  # the keyword match first
    assert all(b.id for b in context.beliefs)

    # the request carries both, and a retraction of the offered belief lands on its slot
    fake.script(Reply.memories(memory(text="The user no longer lives in Lisbon.", type="fact", attribute="lives_in",
                                      value="Lisbon", action="retract", belief="b1", evidence="moved out of Lisbon")))
    extractor = AnthropicExtractor(claude_settings(fake.url, extractor="anthropic"), context=source)
    try:
        ((claim,),) = await extractor.extract([now])
    finally:
        await extractor.aclose()
    content = fake.requests[0]["messages"][0]["content"]
    text = content if isinstance(content, str) else "".join(block["text"] for block in content)
    assert '<turn_before role="assistant">Do you want me to look for flats in Porto or in Lisbon?</turn_before>' in text
    assert "Emacs" not in text  # another session's turn is not context
    assert f"b1: {lisbon[0].text}" in text
    assert (claim.entity, claim.attribute, claim.value, claim.polarity) == (
        lisbon[0].entity, lisbon[0].attribute, lisbon[0].value, Polarity.NEGATIVE
    )


async def test_a_turn_without_a_session_gets_beliefs_only(pipeline: WritePipeline, tenant: str) -> None:
    await pipeline.persist(await pipeline.prepare([raw(tenant, 1, "I'm allergic to peanuts.")]))
    turn = Turn(turn_id="t2", tenant_id=tenant, user_id="ana", role=Role.USER, text="any peanut-free snacks?",
                ts=T0 + timedelta(minutes=5))  # fmt: skip
    context = await StoredTurnContext(pipeline.store, query_terms)(turn)
    assert context.preceding == ()
    assert any("peanut" in b.text.lower() for b in context.beliefs)


async def test_through_the_write_path_the_assistants_question_is_context_and_the_gate_counts_each_turn(
    pipeline: WritePipeline, tenant: str, fake: FakeAnthropic
) -> None:
    from prometheus_client import REGISTRY

    def gate(outcome: str) -> float:
        return REGISTRY.get_sample_value("beliefstream_extraction_gate_total", {"outcome": outcome}) or 0.0

    outcomes = ("extracted", "non_user_role", "secret_only", "acknowledgement")
    before = {outcome: gate(outcome) for outcome in outcomes}
    fake.reset(default=Reply.memories())
    pipeline.extractor = AnthropicExtractor(
        claude_settings(fake.url, extractor="anthropic", anthropic_timeout_s=5.0, extraction_group_turns=False)
    )
    try:
        await pipeline.persist(await pipeline.prepare([
            raw(tenant, 1, "Find me a dentist near work."),
            raw(tenant, 2, "Dr. Silva at 9am or Dr. Wong at 4pm?", role="assistant"),
            raw(tenant, 3, "ok thanks"),
            raw(tenant, 4, "sk-ant-api03-" + "x" * 90),
            raw(tenant, 5, "the afternoon one"),
        ]))  # fmt: skip
    finally:
        await pipeline.extractor.aclose()

    assert fake.request_count == 2  # only the user's turns that say something reach the model
    last = fake.requests[1]["messages"][0]["content"]
    assert '<turn_before role="assistant">Dr. Silva at 9am or Dr. Wong at 4pm?</turn_before>' in last
    assert "sk-ant" not in json.dumps(fake.requests)
    assert {outcome: gate(outcome) - before[outcome] for outcome in outcomes} == {
        "extracted": 2, "non_user_role": 1, "secret_only": 1, "acknowledgement": 1,
    }  # fmt: skip
