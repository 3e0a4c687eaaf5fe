"""Recall rules end to end: real SQL store (both backends), Qdrant Edge, the real embedder."""

from __future__ import annotations

from datetime import timedelta

import pytest
import sqlalchemy as sa

from beliefs.records import MemoryState, MemoryType, RecallSemantics, Trust, Visibility
from sidecar.auth import TENANT_DEFAULT, Capability, Principal
from sidecar.errors import Forbidden
from sidecar.recall.budget import edge_order, estimate_tokens
from sidecar.recall.models import RecallRequest
from sinks.sql.tables import memories
from tests.conftest import unique_tenant
from tests.sidecar.recall.seeding import NOW, mem

MEETING = {"entity": "user", "attribute": "preferred_meeting_time"}
EDITOR = {"entity": "user", "attribute": "preferred_editor"}


async def ask(world, tenant: str, query: str, agent: str | None = None, **body):
    principal = Principal(tenant, agent, key_id="key-fingerprint")
    return await world.service.recall(
        principal, RecallRequest(user_id=body.pop("user_id", "u1"), query=query, **body)
    )


def ids(result) -> list[str]:
    return [m.id for m in result.memories]


# -- 1. scope ----------------------------------------------------------------------------------------


async def test_scope_other_tenant_never_recalled(world, tenant) -> None:
    other = unique_tenant()
    mine = mem(tenant, "u1", "The user loves sushi restaurants.")
    theirs = mem(other, "u1", "The user loves sushi restaurants in Osaka.")
    await world.seed(mine)
    await world.seed(theirs)
    assert ids(await ask(world, tenant, "sushi restaurants")) == [mine.id]
    assert ids(await ask(world, other, "sushi restaurants")) == [theirs.id]


async def test_scope_other_user_never_recalled_and_empty_is_valid(world, tenant) -> None:
    await world.seed(mem(tenant, "u2", "The user loves sushi."))
    result = await ask(world, tenant, "sushi", diagnostics=True)
    assert result.memories == [] and result.tokens_used == 0 and result.conflicts == []


async def test_scope_agent_private_only_for_that_agent(world, tenant) -> None:
    private = mem(
        tenant, "u1", "Draft plan: migrate the billing service.", visibility=Visibility.AGENT, agent_id="bot"
    )
    shared = mem(tenant, "u1", "The billing service is written in Go.", agent_id="spy")
    await world.seed(private, shared)
    query = "billing service"
    assert set(ids(await ask(world, tenant, query, agent="bot"))) == {private.id, shared.id}
    with pytest.raises(Forbidden):  # a tenant key's default rights act for no agent
        await ask(world, tenant, query, agent_id="bot")
    operator = Principal(tenant, None, capabilities=TENANT_DEFAULT | {Capability.AGENTS})
    as_bot = await world.service.recall(operator, RecallRequest(user_id="u1", query=query, agent_id="bot"))
    assert set(ids(as_bot)) == {private.id, shared.id}
    assert ids(await ask(world, tenant, query, agent="spy")) == [shared.id]
    assert ids(await ask(world, tenant, query)) == [shared.id]
    with pytest.raises(Forbidden):
        await ask(world, tenant, query, agent="spy", agent_id="bot")  # a body never widens a bound key


# -- 2. currency -------------------------------------------------------------------------------------


async def test_currency_superseded_excluded(world, tenant) -> None:
    morning = mem(tenant, "u1", "The user prefers morning meetings.", value="morning", days_ago=10, **MEETING)
    afternoon = mem(tenant, "u1", "The user now prefers afternoon meetings.", value="afternoon", **MEETING)
    await world.seed(morning, afternoon)
    assert ids(await ask(world, tenant, "when should meetings be scheduled")) == [afternoon.id]


async def test_currency_excludes_revoked_expired_weak_untrusted_even_with_a_stale_vector_payload(
    world, tenant
) -> None:
    keep = mem(tenant, "u1", "The user plays the cello.")
    revoked = mem(tenant, "u1", "The user plays the violin.")
    expired = mem(tenant, "u1", "The user plays the viola this week.", expires_at=NOW - timedelta(minutes=1))
    weak = mem(tenant, "u1", "The user plays the double bass.", confidence=0.3)
    untrusted = mem(tenant, "u1", "The user plays the harp.", trust=Trust.UNTRUSTED)
    contested = mem(tenant, "u1", "The user plays the piano.")
    await world.seed(keep, revoked, expired, weak, untrusted, contested)
    async with world.store._engine.begin() as conn:  # SQL changes; the index payload still says active
        await conn.execute(
            sa.update(memories).where(memories.c.id == revoked.id).values(state="revoked", revoked_at=NOW)
        )
        await conn.execute(sa.update(memories).where(memories.c.id == contested.id).values(state="contested"))
    result = await ask(world, tenant, "which instrument does the user play", diagnostics=True)
    assert ids(result) == [keep.id]
    assert result.diagnostics.stale_candidates >= 2
    assert not {revoked.id, contested.id} & {s.id for s in result.suppressed}  # never even named


async def test_superseded_state_is_not_recalled_after_reconcile_either(world, tenant) -> None:
    old = mem(tenant, "u1", "The user uses Vim.", value="vim", days_ago=5, **EDITOR)
    new = mem(tenant, "u1", "The user switched to Helix.", value="helix", **EDITOR)
    await world.seed(old, new)
    [superseded] = [
        m for m in (await world.store.list_memories(tenant, "u1", state=None))[0] if m.id == old.id
    ]
    assert superseded.state is MemoryState.SUPERSEDED
    assert old.id not in ids(await ask(world, tenant, "Vim editor"))


# -- 3. candidates -----------------------------------------------------------------------------------


async def test_candidates_fuse_dense_and_keyword(world, tenant) -> None:
    target = mem(tenant, "u1", "The user's favourite text editor is Helix.")
    await world.seed(target, mem(tenant, "u1", "The user jogs along the river."))
    result = await ask(world, tenant, "Helix editor", diagnostics=True)
    first = result.memories[0]
    assert first.id == target.id and first.recall_reason == "matched query (dense+keyword)"
    assert first.sources.dense_rank == 1 and first.sources.keyword_rank == 1
    assert result.diagnostics.terms == ["helix", "editor"]


async def test_vector_outage_degrades_to_keyword_candidates(world, tenant) -> None:
    target = mem(tenant, "u1", "The user's favourite text editor is Helix.")
    await world.seed(target)
    await world.index.close()
    result = await ask(world, tenant, "helix", diagnostics=True)
    assert ids(result) == [target.id] and result.diagnostics.degraded == ["dense"]


async def test_candidates_the_query_model_call_starts_before_sql_reads_on_the_loop(world, tenant, monkeypatch) -> None:
    """SQLite reads run on the event loop; the model call must be in flight first so they overlap."""
    await world.seed(mem(tenant, "u1", "The user's favourite text editor is Helix."))
    order: list[str] = []
    embed = world.embedder.aembed
    monkeypatch.setattr(world.embedder, "aembed", lambda texts: (order.append("model"), embed(texts))[1])
    world.store._reader.on_statement(lambda *_: order.append("sql"))
    await ask(world, tenant, "which editor does the user like")
    assert order[0] == "model" and "sql" in order


# -- 4. rank -----------------------------------------------------------------------------------------


async def test_rank_relevance_blended_with_confidence(world, tenant) -> None:
    relevant = mem(tenant, "u1", "The user is allergic to peanuts.", confidence=0.7)
    solid = mem(tenant, "u1", "The user drives a blue bicycle to work.", confidence=1.0, importance=0.9)
    await world.seed(relevant, solid)
    result = await ask(world, tenant, "food allergies peanuts", limit=1)
    assert ids(result) == [relevant.id]
    assert 0 < result.memories[0].effective_confidence <= 0.7


# -- 5. profile block --------------------------------------------------------------------------------


async def test_profile_fact_recalled_without_similarity_and_capped(world, tenant) -> None:
    profile = [
        mem(tenant, "u1", f"Profile fact number {i}.", profile=True, importance=0.5 + i / 100)
        for i in range(7)
    ]
    await world.seed(*profile)
    result = await ask(world, tenant, "kubernetes pod autoscaling", preset="precise", diagnostics=True)
    assert len(result.memories) == 3  # the precise preset's profile block
    assert all(m.recall_reason == "profile fact" for m in result.memories)
    assert {s.why for s in result.suppressed} == {"profile block full"}
    assert len((await ask(world, tenant, "")).memories) == 5  # balanced: a block of five


# -- 6. constraints ----------------------------------------------------------------------------------


def alto(tenant: str, **fields):
    return mem(
        tenant,
        "u1",
        "Do not suggest Alto; the user had a bad experience there.",
        recall_semantics=RecallSemantics.CONSTRAINT,
        trigger={"action": "recommend", "domain": "restaurant"},
        entity="user",
        attribute="avoid",
        value="Alto",
        **fields,
    )


async def test_constraint_fires_on_trigger_without_similarity(world, tenant) -> None:
    constraint = alto(tenant)
    await world.seed(constraint, mem(tenant, "u1", "The user writes Python at work."))
    unrelated = "python type hints"
    assert constraint.id not in ids(await ask(world, tenant, unrelated, preset="precise"))
    fired = await ask(
        world, tenant, unrelated, preset="precise", action={"action": "recommend", "domain": "restaurant"}
    )
    assert fired.memories[0].id == constraint.id
    assert fired.memories[0].recall_reason.startswith("constraint triggered by recommend/restaurant")
    other_domain = await ask(
        world, tenant, unrelated, preset="precise", action={"action": "recommend", "domain": "hotel"}
    )
    assert constraint.id not in ids(other_domain)


async def test_constraint_never_suppressed_by_live_intent(world, tenant) -> None:
    constraint = alto(tenant)
    await world.seed(constraint)
    result = await ask(
        world,
        tenant,
        "dinner tonight",
        live_intent={"avoid": "nothing"},
        action={"action": "recommend", "domain": "restaurant"},
    )
    assert ids(result) == [constraint.id]


async def test_topic_narrows_ordinary_memories_never_profile_facts_or_constraints(world, tenant) -> None:
    at_work = mem(tenant, "u1", "The user runs the quarterly budget review at work.", topic="work")
    at_home = mem(tenant, "u1", "The user keeps a household budget spreadsheet.", topic="personal")
    name = mem(tenant, "u1", "The user's name is Dana.", profile=True, topic="personal")
    constraint = alto(tenant)  # topic personal
    await world.seed(at_work, at_home, name, constraint)
    action = {"action": "recommend", "domain": "restaurant"}
    result = await ask(world, tenant, "budget", topic="work", action=action, diagnostics=True)
    assert set(ids(result)) == {at_work.id, name.id, constraint.id}
    assert {"id": at_home.id, "why": "outside topic 'work'"} in [s.model_dump(exclude={"reason"}) for s in result.suppressed]
    assert at_home.id in ids(await ask(world, tenant, "budget"))


# -- 7. live intent ----------------------------------------------------------------------------------


async def test_live_intent_suppresses_default(world, tenant) -> None:
    default = mem(tenant, "u1", "The user prefers meetings at 9 am.", value="9:00", **MEETING)
    await world.seed(default, mem(tenant, "u1", "The user's team meets in room 4."))
    body = {"live_intent": {"preferred_meeting_time": "15:00"}}
    quiet = await ask(world, tenant, "book the review meeting", **body)
    assert default.id not in ids(quiet) and quiet.suppressed == []
    loud = await ask(world, tenant, "book the review meeting", diagnostics=True, **body)
    assert default.id not in ids(loud)
    assert {"id": default.id, "why": "live intent sets preferred_meeting_time: preferred_meeting_time='15:00'", "reason": "live_intent"} in [
        s.model_dump() for s in loud.suppressed
    ]


# -- 8. conflicts ------------------------------------------------------------------------------------


async def test_conflicting_pair_returns_stronger_and_reports_conflict(world, tenant) -> None:
    vim = mem(tenant, "u1", "The user edits code in Vim.", value="vim", confidence=0.9, **EDITOR)
    emacs = mem(
        tenant,
        "u1",
        "The user edits code in Emacs.",
        value="emacs",
        confidence=0.6,
        trust=Trust.CAUTION,
        **EDITOR,
    )
    await world.seed(vim, emacs)  # a caution-trust claim is stored alongside: both stay active
    result = await ask(world, tenant, "which code editor", diagnostics=True)
    assert vim.id in ids(result) and emacs.id not in ids(result)
    [conflict] = result.conflicts
    assert (conflict.kept_id, conflict.dropped_id, conflict.kept_value, conflict.dropped_value) == (
        vim.id,
        emacs.id,
        "vim",
        "emacs",
    )


async def test_conflict_winner_is_recalled_even_when_only_the_loser_matched(world, tenant) -> None:
    strong = mem(tenant, "u1", "Vim.", value="vim", confidence=0.95, **EDITOR)
    weak = mem(
        tenant,
        "u1",
        "The user edits code in Emacs.",
        value="emacs",
        confidence=0.5,
        trust=Trust.CAUTION,
        **EDITOR,
    )
    await world.seed(strong, weak)
    result = await ask(world, tenant, "emacs", preset="precise")
    assert ids(result) == [strong.id] and result.conflicts[0].dropped_id == weak.id


# -- 9. budget and order -----------------------------------------------------------------------------


async def test_budget_never_cuts_a_memory(world, tenant) -> None:
    long = mem(tenant, "u1", "The user keeps a garden with " + "tomatoes, " * 30 + "and basil.")
    short = mem(tenant, "u1", "The user grows tomatoes.")
    await world.seed(long, short)
    result = await ask(world, tenant, "tomatoes garden", budget_tokens=20, diagnostics=True)
    assert ids(result) == [short.id] and result.memories[0].text == short.text
    assert result.tokens_used == estimate_tokens(short.text) <= 20
    assert {"id": long.id, "why": "over the token budget"} in [s.model_dump(exclude={"reason"}) for s in result.suppressed]


async def test_limit_caps_the_count(world, tenant) -> None:
    await world.seed(*(mem(tenant, "u1", f"The user owns guitar number {i}.") for i in range(5)))
    assert len((await ask(world, tenant, "guitar", limit=2)).memories) == 2


async def test_edge_weighted_order(world, tenant) -> None:
    await world.seed(
        *(
            mem(tenant, "u1", f"The user visited {c} last year.", importance=i / 10)
            for i, c in enumerate(["Lisbon", "Oslo", "Kyoto", "Lima", "Quito", "Hanoi"])
        )
    )
    result = await ask(world, tenant, "travel: cities the user visited")
    by_score = sorted(result.memories, key=lambda m: -m.score)
    assert [m.id for m in result.memories] == [m.id for m in edge_order(by_score)[::-1]]
    assert result.memories[-1].score == max(m.score for m in result.memories)  # the best closes the block
    assert result.memories[0].score == by_score[1].score  # the second best opens it
    assert min(m.score for m in result.memories) in {m.score for m in result.memories[2:-2]}  # the weakest: middle


async def test_profile_facts_open_the_prompt_and_the_best_memory_closes_it(world, tenant) -> None:
    name = mem(tenant, "u1", "User's name is Tomasz.", importance=0.5, type=MemoryType.FACT, entity="user",
               attribute="name", value="Tomasz", profile=True)  # fmt: skip
    units = mem(tenant, "u1", "User wants metric units.", importance=0.4, entity="user", attribute="measurement_units",
                value="metric", profile=True)  # fmt: skip
    trips = [
        mem(tenant, "u1", f"User went hiking in {place} last summer.", importance=0.3 + i / 20, type=MemoryType.FACT)
        for i, place in enumerate(["the Tatras", "the Dolomites", "Snowdonia", "the Pyrenees", "the Alps", "Norway"])
    ]
    best = mem(tenant, "u1", "User's favourite hiking trail is the Orla Perć ridge in the Tatras.", importance=0.9,
               type=MemoryType.FACT)  # fmt: skip
    await world.seed(name, units, *trips, best)
    result = await ask(world, tenant, "which hiking trail do I like best?", format="prompt")
    ids = [m.id for m in result.memories]
    assert len(ids) >= 6 and set(ids[:2]) == {name.id, units.id}  # the profile block: the beginning
    assert ids[-1] == best.id  # the best memory: the end
    lines = [line for line in result.prompt.splitlines() if line.startswith("- [")]
    assert "Tomasz" in lines[0] + lines[1] and "Orla Perć" in lines[-1]


# -- 10. explain -------------------------------------------------------------------------------------


async def test_explain_fields_and_diagnostics(world, tenant) -> None:
    target = mem(
        tenant, "u1", "The user's dog is called Biscuit.", attribute="has_pet", entity="user", value="dog"
    )
    await world.seed(target)
    plain = await ask(world, tenant, "dog's name")
    [recalled] = plain.memories
    assert recalled.citations == target.source_turn_ids and recalled.valid_from == target.valid_from
    assert recalled.type == target.type and recalled.confidence == target.confidence
    assert 0 < recalled.effective_confidence <= recalled.confidence and 0 < recalled.score <= 1
    assert recalled.recall_reason.startswith("matched query")
    assert (
        recalled.sources is None
        and plain.diagnostics is None
        and plain.tokens_used == estimate_tokens(target.text)
    )
    detailed = await ask(world, tenant, "dog's name", diagnostics=True)
    assert detailed.memories[0].sources.dense_rank == 1
    assert detailed.diagnostics.preset == "balanced" and detailed.diagnostics.dense_candidates == 1
