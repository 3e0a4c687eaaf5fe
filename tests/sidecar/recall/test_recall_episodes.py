"""Episodes in recall end to end (real SQL store, Qdrant Edge, the real embedder): dated, attributed
quotes beside the beliefs, in the budget, under scope and trust, never overriding a belief."""

from __future__ import annotations

import json
from datetime import timedelta

import sqlalchemy as sa
from recording_producer import RecordingProducer

from beliefs.records import MemoryType, Role, Trust, Visibility
from sidecar.auth import Principal
from sidecar.recall.audit import AuditLog
from sidecar.recall.models import RecallRequest
from sidecar.recall.service import RecallService
from sinks.sql.tables import recall_audit
from tests.sidecar.recall.episode_seeding import said, seed_said, with_memories
from tests.sidecar.recall.seeding import NOW, mem


async def ask(world, tenant: str, query: str, agent: str | None = None, **body):
    request = RecallRequest(user_id=body.pop("user_id", "u1"), query=query, diagnostics=True, **body)
    return await world.service.recall(Principal(tenant, agent, key_id="k"), request)


def episodes(result) -> list:
    return [m for m in result.memories if m.type == "episode"]


async def test_episodes_come_back_as_dated_attributed_quotes_counted_in_the_budget(world, tenant) -> None:
    kitten = said(tenant, "u1", "I adopted a grey kitten called Pixel from the shelter.", speaker="Mira", days_ago=20)
    await seed_said(world, kitten)
    result = await ask(world, tenant, "what is the kitten called?")
    [item] = episodes(result)
    assert (item.id, item.text, item.speaker, item.role) == (kitten.id, kitten.text, "Mira", Role.USER)
    assert item.said_at == kitten.said_at and item.citations == [kitten.turn_id]
    assert "said by Mira on" in item.recall_reason
    assert result.tokens_used >= len(kitten.text) // 4
    tight = await ask(world, tenant, "what is the kitten called?", budget_tokens=5)
    assert episodes(tight) == []
    assert ("over the token budget" in [s.why for s in tight.suppressed if s.id == kitten.id])


async def test_beliefs_come_first_then_the_quotes(world, tenant) -> None:
    # the turn names someone its belief leaves unnamed: a quote of its own (`carried_quotes`); the belief
    # names a school the turn does not: it does not fold into it (`folded_beliefs`)
    turn = said(tenant, "u1", "I'm learning the cello, so please tell Marco about my lessons.", days_ago=3)
    cello = mem(tenant, "u1", "User is learning the cello at Ashford Music.", importance=0.9, type=MemoryType.FACT)
    await seed_said(world, turn, with_memories(turn, cello))
    result = await ask(world, tenant, "cello lessons")
    assert [m.type for m in result.memories] == [MemoryType.FACT, "episode"]
    assert result.memories[1].citations == result.memories[0].citations == [turn.turn_id]


async def test_a_safety_fact_for_a_food_request_carries_its_turns_quote_whatever_it_says_more(world, tenant) -> None:
    turn = said(tenant, "u1", "I'm allergic to peanuts, so please tell Marco in the kitchen.", days_ago=3)
    allergy = mem(tenant, "u1", "User is allergic to peanuts.", importance=0.9, type=MemoryType.FACT,
                  entity="user", attribute="allergy", value="peanuts")  # fmt: skip
    await seed_said(world, turn, with_memories(turn, allergy))
    result = await ask(world, tenant, "Suggest a dinner with peanuts for the kitchen crew.")
    [item] = result.memories  # one item per fact: the safety fact, its quote (Marco and all) its evidence
    assert item.id == allergy.id and [(e.episode_id, e.text) for e in item.evidence] == [(turn.id, turn.text)]
    assert [s.reason for s in result.suppressed if s.id == turn.id] == ["carried_as_evidence"]


async def test_a_belief_is_ranked_as_relevant_as_the_turn_it_was_drawn_from(world, tenant) -> None:
    turn = said(tenant, "u1", "I adopted a grey kitten called Pixel from the shelter.", days_ago=3)
    pet = mem(tenant, "u1", "User adopted a pet from the shelter in Leeds.", type=MemoryType.FACT)  # not all in the turn: no fold
    await seed_said(world, turn, with_memories(turn, pet))
    result = await ask(world, tenant, "what is the kitten called?")
    by_id = {m.id: m for m in result.memories}
    belief, quote = by_id[pet.id], by_id[turn.id]
    assert belief.sources.keyword_rank is None  # its own words miss the question's
    assert belief.sources.relevance == quote.sources.relevance > belief.sources.dense_score


async def test_a_quoted_turn_whose_belief_this_recall_read_does_not_read_it_again(world, tenant, monkeypatch) -> None:
    # the turn names someone its belief leaves unnamed: a quote of its own (`carried_quotes`); the belief
    # names a school the turn does not: it does not fold into it (`folded_beliefs`)
    turn = said(tenant, "u1", "I'm learning the cello, so please tell Marco about my lessons.", days_ago=3)
    cello = mem(tenant, "u1", "User is learning the cello at Ashford Music.", importance=0.9, type=MemoryType.FACT)
    await seed_said(world, turn, with_memories(turn, cello))
    reads: list[list[str]] = []
    hydrate = world.store.hydrate

    async def counted(scope, currency, ids, slot_attributes):
        reads.append(list(ids))
        return await hydrate(scope, currency, ids, slot_attributes)

    monkeypatch.setattr(world.store, "hydrate", counted)
    result = await ask(world, tenant, "cello lessons")
    assert [m.type for m in result.memories] == [MemoryType.FACT, "episode"]
    assert not result.memories[1].superseded
    assert reads == [[cello.id]]  # the quote's belief is known current from the recall's own read


async def test_an_episode_whose_belief_was_superseded_is_labelled_or_suppressed(world, tenant) -> None:
    old = said(tenant, "u1", "I live in Berlin.", days_ago=30)
    new = said(tenant, "u1", "I live in Lisbon now.", days_ago=1)
    place = {"type": MemoryType.FACT, "entity": "user", "attribute": "lives_in"}
    lisbon = mem(tenant, "u1", "User lives in Lisbon.", value="Lisbon", **place)
    await seed_said(world, old, with_memories(old, mem(tenant, "u1", "User lives in Berlin.", value="Berlin", **place)))
    await seed_said(world, new, with_memories(new, lisbon))

    result = await ask(world, tenant, "which city do I live in?", superseded_episodes="label")
    quoted = {m.id: m for m in episodes(result)}
    assert quoted[old.id].superseded and "no longer current" in quoted[old.id].note
    assert new.id not in quoted  # the current turn is carried on its belief, not labelled
    [belief] = [m for m in result.memories if m.id == lisbon.id]
    assert [e.episode_id for e in belief.evidence] == [new.id]
    assert quoted[old.id].score < belief.score
    assert [v.id for v in result.diagnostics.superseded_episodes] == [old.id]
    assert result.diagnostics.superseded_episodes[0].why.startswith("labelled superseded")

    strict = await ask(world, tenant, "which city do I live in?")  # the default
    assert old.id not in {m.id for m in strict.memories}
    assert all(old.turn_id not in m.citations for m in strict.memories)  # nor quoted as a neighbour
    assert any(s.id == old.id and s.why.startswith("suppressed") for s in strict.suppressed)
    assert [v.id for v in strict.diagnostics.superseded_episodes] == [old.id]
    listed = [s.id for s in strict.suppressed]
    assert len(listed) == len(set(listed))  # each candidate kept out once; the superseded view is a second list


async def test_agent_private_and_other_user_episodes_are_never_returned(world, tenant) -> None:
    theirs = said(tenant, "u2", "My locker code is by the blue door.")
    private = said(tenant, "u1", "My locker is by the red door.", agent_id="agent-a", visibility=Visibility.AGENT)
    for episode in (theirs, private):
        await seed_said(world, episode)
    assert episodes(await ask(world, tenant, "where is my locker door?")) == []
    assert episodes(await ask(world, tenant, "where is my locker door?", agent="agent-b")) == []
    [own] = episodes(await ask(world, tenant, "where is my locker door?", agent="agent-a"))
    assert own.id == private.id


async def test_caution_and_untrusted_episodes_only_on_request(world, tenant) -> None:
    answer = said(tenant, "u1", "The museum opens at nine on Sundays.", role=Role.ASSISTANT, trust=Trust.CAUTION)
    await seed_said(world, answer)
    default = await ask(world, tenant, "when does the museum open on Sunday?")
    assert episodes(default) == []
    assert any(s.id == answer.id and "caution" in s.why for s in default.suppressed)
    opted = await ask(world, tenant, "when does the museum open on Sunday?", include_untrusted_evidence=True)
    [item] = episodes(opted)
    assert item.role == Role.ASSISTANT


async def test_a_named_speaker_prefers_their_own_turns(world, tenant) -> None:
    mira = said(tenant, "u1", "I went hiking in the Alps with my brother.", speaker="Mira")
    tomas = said(tenant, "u1", "I went hiking in the Alps with my sister.", speaker="Tomas")
    for episode in (mira, tomas):
        await seed_said(world, episode)
    result = await ask(world, tenant, "Who did Tomas go hiking with?")
    best = max(episodes(result), key=lambda m: m.score)
    assert best.id == tomas.id and "about Tomas" in best.recall_reason
    assert result.diagnostics.named_speakers == ["Tomas"]


async def test_dates_in_the_query_prefer_what_was_said_then(world, tenant) -> None:
    then = said(tenant, "u1", "We spent the day at the lake.", days_ago=400)
    lately = said(tenant, "u1", "We spent the day at the lake.", days_ago=10)
    for episode in (then, lately):
        await seed_said(world, episode)
    month = then.said_at.strftime("%B %Y")
    result = await ask(world, tenant, f"what did we do in {month}?")
    best = max(episodes(result), key=lambda m: m.score)
    assert best.id == then.id and f"said within '{month}'" in best.recall_reason
    assert result.diagnostics.time_window[0] <= then.said_at < result.diagnostics.time_window[1]
    assert best.said_at == then.said_at  # the date an assistant needs to answer "when"


async def test_neighbouring_turns_come_with_a_quote_when_asked_and_count_in_the_budget(world, tenant) -> None:
    question = said(tenant, "u1", "What instrument did you pick up?", speaker="Tomas", days_ago=2.001)
    answer = said(tenant, "u1", "The cello, I practise every evening.", speaker="Mira", days_ago=2.0)
    for episode in (question, answer):
        await seed_said(world, episode)
    plain = await ask(world, tenant, "which instrument does Mira practise?", limit=1, context_turns=0)
    wide = await ask(world, tenant, "which instrument does Mira practise?", limit=1, context_turns=1)
    [one], [two] = episodes(plain), episodes(wide)
    assert len(one.citations) == 1 and one.context == []
    assert set(two.citations) == {question.turn_id, answer.turn_id}
    assert [t.turn_id for t in two.context] == [question.turn_id if two.id == answer.id else answer.turn_id]
    assert wide.tokens_used > plain.tokens_used


async def test_relative_dates_read_against_dates_relative_to_even_without_a_zone(world, tenant) -> None:
    then = said(tenant, "u1", "We painted the fence together.", days_ago=300)
    await seed_said(world, then)
    anchor = (then.said_at + timedelta(days=7)).replace(tzinfo=None)  # a naive date is read as UTC
    result = await ask(world, tenant, "what did we do last week?", dates_relative_to=anchor)
    [item] = episodes(result)
    assert "said within 'last week'" in item.recall_reason


async def test_an_unrelated_quote_is_floored_and_diagnostics_say_why(world, tenant) -> None:
    chatter = said(tenant, "u1", "The printer at work jammed twice.", session="s-2")
    turn = said(tenant, "u1", "I'm allergic to peanuts.")
    allergy = mem(tenant, "u1", "User is allergic to peanuts.", importance=0.9, type=MemoryType.FACT,
                  entity="user", attribute="allergy", value="peanuts")
    await seed_said(world, chatter)
    await seed_said(world, turn, with_memories(turn, allergy))
    result = await ask(world, tenant, "what should I cook tonight?")
    assert chatter.id not in {m.id for m in result.memories}
    assert any(s.id == chatter.id and s.why.startswith("below the similarity floor") for s in result.suppressed)
    [belief] = result.memories  # its turn's quote is carried on it, not a second item
    assert belief.id == allergy.id and [e.episode_id for e in belief.evidence] == [turn.id]


async def test_types_and_topics_filters_leave_no_quotes(world, tenant) -> None:
    kitten = said(tenant, "u1", "I adopted a grey kitten called Pixel from the shelter.", speaker="Mira")
    await seed_said(world, kitten)
    assert episodes(await ask(world, tenant, "what is the kitten called?"))
    assert episodes(await ask(world, tenant, "what is the kitten called?", types=["fact"])) == []
    assert episodes(await ask(world, tenant, "what is the kitten called?", topics=["personal"])) == []


async def test_a_time_filter_selects_quotes_by_when_they_were_said(world, tenant) -> None:
    old = said(tenant, "u1", "I adopted a grey kitten called Pixel from the shelter.", days_ago=300, session="s-old")
    new = said(tenant, "u1", "I adopted a ginger kitten called Mango from the shelter.", days_ago=5, session="s-new")
    for episode in (old, new):
        await seed_said(world, episode)
    cut = new.said_at - timedelta(days=30)
    since = await ask(world, tenant, "what is the kitten called?", since=cut)
    until = await ask(world, tenant, "what is the kitten called?", until=cut)
    assert [m.id for m in episodes(since)] == [new.id]
    assert [m.id for m in episodes(until)] == [old.id]


async def test_the_audit_names_the_quotes_returned_beside_the_beliefs(world, tenant) -> None:
    producer = RecordingProducer()
    audit = AuditLog(world.store, producer, topic="test.recall.audit")
    service = RecallService(world.store, world.index, world.embedder, audit=audit, clock=lambda: NOW)
    turn = said(tenant, "u1", "I adopted a grey kitten called Pixel from the shelter.", speaker="Mira")
    kitten = mem(tenant, "u1", "Mira has a kitten called Pixel, born in March.", type=MemoryType.FACT)  # more than the turn: no fold
    await seed_said(world, turn, with_memories(turn, kitten))
    # the question asks for what only the turn says (the shelter): a quote of its own (`carried_quotes`)
    result = await service.recall(
        Principal(tenant, None, key_id="k"), RecallRequest(user_id="u1", query="kitten from the shelter")
    )
    await service.flush()
    assert {m.type for m in result.memories} == {"fact", "episode"}
    [published] = [json.loads(r.value) for r in producer.records]
    assert published["memory_ids"] == [kitten.id] and published["episode_ids"] == [turn.id]
    async with world.store._engine.connect() as conn:  # the SQL audit row says the same
        [row] = (await conn.execute(sa.select(recall_audit).where(recall_audit.c.tenant_id == tenant))).mappings().all()
    assert (row["memory_ids"], row["episode_ids"]) == ([kitten.id], [turn.id])


async def test_a_belief_and_the_turn_it_restates_are_one_item_carrying_the_quote(world, tenant) -> None:
    turn = said(tenant, "u1", "I live in Lisbon these days.", speaker="Mira", days_ago=4)
    city = mem(tenant, "u1", "User lives in Lisbon.", type=MemoryType.FACT, entity="user", attribute="lives_in", value="Lisbon")
    await seed_said(world, turn, with_memories(turn, city))
    result = await ask(world, tenant, "which city do I live in?")
    [item] = result.memories  # the quote is not a second item
    assert item.id == city.id and item.citations == [turn.turn_id]
    [quote] = item.evidence
    assert (quote.episode_id, quote.text, quote.speaker, quote.said_at) == (turn.id, turn.text, "Mira", turn.said_at)
    assert item.said_at == turn.said_at
    assert result.tokens_used == len("User lives in Lisbon.") // 4 + 1  # the belief's tokens only
    assert any(s.id == turn.id and s.why == f"carried as the evidence of belief {city.id}" for s in result.suppressed)


async def test_a_turn_that_says_more_than_its_belief_is_the_one_item_naming_the_belief(world, tenant) -> None:
    turn = said(tenant, "u1", "I quit squash after my knee injury and took up swimming.", days_ago=4)
    sport = mem(tenant, "u1", "User quit squash after the knee injury.", type=MemoryType.FACT)
    await seed_said(world, turn, with_memories(turn, sport))
    result = await ask(world, tenant, "which sport do I do these days?")
    [item] = result.memories  # "swimming" is only in the turn: the quote stays, the belief folds into it
    assert item.id == turn.id and item.folded_beliefs == [sport.id] and item.evidence == []
    assert any(s.id == sport.id and "folded" in s.why for s in result.suppressed)
