"""The write path against the design reading's WRITE rules, raw turns in through the real pipeline
(rules extractor, real embedder, SQL on each backend): what is stored, as what, and in what words."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime

from agents.decay_job import run_decay
from agents.pipeline import WritePipeline
from beliefs.records import Claim, Memory, MemoryState, MemoryType, RecallSemantics, Trust, Turn
from reading.decode import RawTurn
from reading.extract.rules import RulesExtractor
from sinks.sql.manage_store import MaintenanceStore

TS = datetime(2026, 11, 20, 12, tzinfo=UTC)


def raw(tenant: str, turn_id: str, text: str, *, role: str = "user", session: str = "s1",
        ts: datetime = TS, metadata: dict | None = None) -> RawTurn:  # fmt: skip
    value = {"tenant_id": tenant, "user_id": "ana", "session_id": session, "turn_id": turn_id, "role": role,
             "text": text, "ts": ts.isoformat(), **({"metadata": metadata} if metadata else {})}  # fmt: skip
    return RawTurn(json.dumps(value).encode(), f"{tenant}:ana".encode(), "beliefstream.turns", 0, 0)


async def write(pipeline: WritePipeline, tenant: str, *texts: str, **fields) -> list[Memory]:
    """Each text as one turn of its own batch, in order; the user's memories afterwards."""
    for index, text in enumerate(texts):
        await pipeline.persist(await pipeline.prepare([raw(tenant, f"t{index}", text, **fields)]))
    memories, _ = await pipeline.store.list_memories(tenant, "ana")
    return memories


class ScriptedExtractor(RulesExtractor):
    """The rules, plus the claims a test scripts for a turn's text (as another extractor might say)."""

    def __init__(self, extra: dict[str, Sequence[Claim]]) -> None:
        super().__init__()
        self.extra = extra

    async def extract(self, turns: Sequence[Turn]) -> list[list[Claim]]:
        read = await super().extract(turns)
        return [claims + list(self.extra.get(turn.text, ())) for turn, claims in zip(turns, read, strict=True)]


async def test_a_claim_under_the_importance_floor_is_not_stored_whichever_extractor_said_it(
    pipeline: WritePipeline, tenant: str
) -> None:
    text = "Sounds good, thanks. I use pytest for my tests."
    filler = Claim(text="The user said it sounds good.", type=MemoryType.FACT, importance=0.15, confidence=0.9,
                   evidence="Sounds good")  # fmt: skip
    pipeline.extractor = ScriptedExtractor({text: [filler]})
    memories = await write(pipeline, tenant, text)
    assert memories and all(memory.importance >= 0.2 for memory in memories)
    assert "sounds good" not in " ".join(memory.text.lower() for memory in memories)


async def test_decay_score_is_null_until_the_first_decay_run(pipeline: WritePipeline, tenant: str) -> None:
    """The seed's contract: written unscored, scored by the decay job; recall reads unscored as 1."""
    (memory,) = await write(pipeline, tenant, "I live in Lisbon.")
    assert memory.decay_score is None
    await pipeline.projector.drain()

    report = await run_decay(MaintenanceStore.of(pipeline.store), pipeline.projector, TS, tenant_id=tenant)

    (scored,) = (await pipeline.store.list_memories(tenant, "ana"))[0]
    assert report.updated >= 1 and scored.decay_score is not None and 0.0 < scored.decay_score <= 1.0


async def test_memory_texts_are_readable_prose_with_names_kept(pipeline: WritePipeline, tenant: str) -> None:
    """Third person in good grammar: a plural subject the user is part of keeps its plural verb and
    its people; names, places and acronyms keep their case."""
    said = {
        "My wife and I are moving to Porto next month.": "User and their wife are moving to Porto in December 2026.",
        "My partner and I just bought a flat in Lisbon.": "User and their partner just bought a flat in Lisbon.",
        "Me and my brother are training for the Berlin Marathon.":
            "User and their brother are training for the Berlin Marathon.",
        "I and my sister run a bakery in Leeds.": "User and their sister run a bakery in Leeds.",
        "Tom and I are getting married in Sintra.": "Tom and User are getting married in Sintra.",
        "My daughter Maya and I love hiking in the Alps.": "User and their daughter Maya love hiking in the Alps.",
        "I work as a data engineer in Porto.": "User works as a data engineer in Porto.",
        "I'm allergic to Brazil nuts.": "User is allergic to Brazil nuts.",
        "I've been learning Japanese for two years.": "User has been learning Japanese for two years.",
    }  # fmt: skip
    memories = await write(pipeline, tenant, *said)
    texts = {memory.text for memory in memories}
    for expected in said.values():
        assert expected in texts, (expected, sorted(texts))
    assert not any(" ares " in text or "User's wife and User" in text for text in texts)
    (role,) = [m for m in await write(pipeline, f"{tenant}-b", "I work as an SRE at AWS.") if m.attribute == "role"]
    assert (role.text, role.value) == ("User works as an SRE at AWS.", "SRE at AWS")


async def test_the_work_at_hand_is_not_a_memory_but_lasting_decisions_are(
    pipeline: WritePipeline, tenant: str
) -> None:
    """Task state is working memory: it is not stored, so no later session is handed it."""
    memories = await write(
        pipeline, tenant,
        "We decided to use Python for this task.",
        "I'm debugging the login page right now.",
        "Ok so I'm currently stuck on a flaky integration test.",
        "For this exercise we went with recursion over a loop.",
        "Right now I'm refactoring the auth module.",
        "I'm trying to fix this regex, it keeps matching too much.",
        "I chose PostgreSQL for this project.",
        "I'm writing a book about Lisbon.",
    )  # fmt: skip
    texts = [memory.text for memory in memories]
    assert not any(word in text.lower() for text in texts for word in
                   ("python", "login", "flaky", "recursion", "auth module", "regex")), texts  # fmt: skip
    decision = [memory for memory in memories if memory.attribute == "decision"]
    assert [memory.value for memory in decision] == ["PostgreSQL"]
    assert any("book about Lisbon" in text for text in texts)
    episodes, _ = await pipeline.store.list_episodes(tenant, "ana")
    assert len(episodes) == 8  # what was said stays evidence of the conversation


async def test_an_instruction_about_what_not_to_do_is_a_constraint_not_a_question(
    pipeline: WritePipeline, tenant: str
) -> None:
    said = [
        "Do not suggest restaurant Alto.",
        "Please do not book Ryanair flights for me.",
        "Can you stop recommending true-crime podcasts?",
        "Could you please never schedule meetings on Fridays?",
        "Do not use emojis in your replies.",
        "Do you know a good restaurant near Alfama?",  # a question: nothing
        "Do not worry about it.",  # a pleasantry: nothing
    ]
    memories = await write(pipeline, tenant, *said)
    constraints = {m.value: m for m in memories if m.recall_semantics is RecallSemantics.CONSTRAINT}
    assert set(constraints) == {"recommend restaurant Alto", "book Ryanair flights", "recommend true-crime podcasts",
                                "schedule meetings on Fridays", "use emojis in your replies"}  # fmt: skip
    alto = constraints["recommend restaurant Alto"]
    assert alto.trigger == {"action": "recommend", "domain": "restaurant"} and alto.trust is Trust.TRUSTED
    assert alto.text == "Never recommend restaurant Alto to User."
    assert constraints["use emojis in your replies"].text == "User asked the assistant never to use emojis in its replies."
    assert len(memories) == len(constraints)


async def test_a_standing_request_about_what_to_do_is_a_preference(pipeline: WritePipeline, tenant: str) -> None:
    memories = await write(pipeline, tenant, "Always suggest vegetarian options.",
                           "Always recommend trains over flights for me.")  # fmt: skip
    assert sorted(m.text for m in memories if m.type is MemoryType.PREFERENCE) == [
        "User wants the assistant to always recommend trains over flights for them.",
        "User wants the assistant to always suggest vegetarian options.",
    ]


async def test_markup_is_evidence_at_most_and_never_a_name(pipeline: WritePipeline, tenant: str) -> None:
    """Tags and script in a turn, or as its speaker's name, never make a trusted memory or an entity."""
    await write(pipeline, tenant, "<script>alert(document.cookie)</script>", "<img src=x onerror=alert(1)>",
                "My favourite snack is <img src=x onerror=window.pwned=2> popcorn.",
                "I live in Lisbon <script>window.pwned=1</script> now.",
                '<svg onload="fetch(\'//evil.example\')"></svg> I am vegan.')  # fmt: skip
    await pipeline.persist(await pipeline.prepare(
        [raw(tenant, "t9", "I work at Globex as a welder.", metadata={"speaker": "Mal <b>ory</b>"})]
    ))  # fmt: skip
    memories, _ = await pipeline.store.list_memories(tenant, "ana")
    episodes, _ = await pipeline.store.list_episodes(tenant, "ana")

    assert memories and all(memory.trust is not Trust.TRUSTED for memory in memories), [
        (m.text, m.trust) for m in memories
    ]
    assert not any("<" in (memory.entity or "") for memory in memories)
    by_text = {episode.text: episode.trust for episode in episodes}
    assert by_text["<script>alert(document.cookie)</script>"] is Trust.UNTRUSTED
    assert by_text["<img src=x onerror=alert(1)>"] is Trust.UNTRUSTED
    assert all(trust is not Trust.TRUSTED for trust in by_text.values())


async def test_pasted_impersonal_prose_is_untrusted_evidence_not_the_users_episode(
    pipeline: WritePipeline, tenant: str
) -> None:
    article = (
        "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. It is named "
        "after the engineer Gustave Eiffel, whose company designed and built the tower from 1887 to 1889."
    )
    product = (
        "Crafted from full-grain leather, this backpack features a padded laptop sleeve, two side pockets and "
        "adjustable straps. Water-resistant lining keeps contents dry. Dimensions: 45 x 30 x 15 cm."
    )
    own = "I moved to Paris last year and I love walking along the Seine in the evening with my dog Pixel."
    mixed = f"{article}\n\nI climbed it twice when I lived in Paris."
    await write(pipeline, tenant, article, product, own, mixed)
    episodes, _ = await pipeline.store.list_episodes(tenant, "ana")
    trust = {episode.text: episode.trust for episode in episodes}
    assert trust[article] is Trust.UNTRUSTED and trust[product] is Trust.UNTRUSTED
    assert trust[own] is Trust.TRUSTED  # the user's own voice, however long
    assert trust[mixed] is Trust.CAUTION  # own words beside a pasted paragraph
    memories, _ = await pipeline.store.list_memories(tenant, "ana")
    assert not any("Eiffel" in memory.text or "leather" in memory.text for memory in memories)


async def test_a_correction_naming_only_values_makes_the_corrected_belief(pipeline: WritePipeline, tenant: str) -> None:
    """'Sorry, it's 120, not 90.' names no slot: the belief holding 90 gives it, and the new belief
    carries 120, trusted, as a correction, while the old one is superseded."""
    pass_price = Claim(text="User's rail pass costs 90 a month.", type=MemoryType.FACT, topic="finances",
                       importance=0.6, confidence=0.9, attribute="rail_pass_price", value="90",
                       evidence="My rail pass is 90 a month.")  # fmt: skip
    pipeline.extractor = ScriptedExtractor({"My rail pass is 90 a month.": [pass_price]})
    await write(pipeline, tenant, "My rail pass is 90 a month.")
    await pipeline.persist(await pipeline.prepare([raw(tenant, "c1", "Sorry, it's 120, not 90.")]))
    await pipeline.persist(await pipeline.prepare([raw(tenant, "c2", "I live in Porto."),
                                                   raw(tenant, "c3", "Oops, I meant Braga, not Porto.")]))  # fmt: skip

    current = {m.attribute: m for m in (await pipeline.store.list_memories(tenant, "ana"))[0]}
    assert (current["rail_pass_price"].value, current["rail_pass_price"].text) == (
        "120", "User's rail pass costs 120 a month."
    )
    assert current["rail_pass_price"].trust is Trust.TRUSTED and current["rail_pass_price"].source_turn_ids == ["c1"]
    assert (current["lives_in"].value, current["lives_in"].text) == ("Braga", "User lives in Braga.")
    superseded, _ = await pipeline.store.list_memories(tenant, "ana", state=MemoryState.SUPERSEDED)
    assert {"90", "Porto"} <= {m.value for m in superseded}, [(m.text, m.value) for m in superseded]


async def test_a_contrast_that_corrects_no_belief_makes_none(pipeline: WritePipeline, tenant: str) -> None:
    memories = await write(pipeline, tenant, "I live in Porto.", "Sorry, it's 14 km, not 9.")
    assert [(m.attribute, m.value) for m in memories] == [("lives_in", "Porto")]
