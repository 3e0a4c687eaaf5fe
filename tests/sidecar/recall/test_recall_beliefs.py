"""The belief rules of recall end to end: real SQL store (both backends), Qdrant Edge, the real embedder.

One test per rule of issue 11: contradictions of any slot, retraction, volatile vs standing,
constraints by meaning, live instruction against a constraint, how sure and how fresh, the prompt
block, sensitivity, safety facts.
"""

from __future__ import annotations

from datetime import timedelta

from beliefs.records import MemoryType, Polarity, RecallSemantics, Role, Trust
from reading.strip import strip_injected
from sidecar.auth import Principal
from sidecar.recall.models import RecallRequest
from tests.sidecar.recall.seeding import NOW, mem

USER = {"entity": "user"}


async def ask(world, tenant: str, query: str, **body):
    return await world.service.recall(Principal(tenant, None, key_id="k"), RecallRequest(user_id="u1", query=query, **body))


def ids(result) -> list[str]:
    return [m.id for m in result.memories]


async def test_rule_contradiction_on_an_invented_attribute_is_never_recalled_together(world, tenant) -> None:
    monday = mem(tenant, "u1", "The team deploys to production on Mondays.", attribute="deploy_day", value="Monday", **USER)
    friday = mem(
        tenant, "u1", "The team deploys to production on Fridays.", attribute="deploy_day", value="Friday",
        confidence=0.6, trust=Trust.CAUTION, **USER,
    )  # fmt: skip
    await world.seed(monday, friday)  # caution: stored alongside, both active
    result = await ask(world, tenant, "which day do we deploy to production")
    assert monday.id in ids(result) and friday.id not in ids(result)
    [conflict] = result.conflicts
    assert (conflict.kept_id, conflict.dropped_id) == (monday.id, friday.id)


async def test_rule_opposite_polarity_is_never_recalled_together(world, tenant) -> None:
    loves = mem(tenant, "u1", "The user loves jazz.", attribute="likes", value="jazz", confidence=0.9, **USER)
    stopped = mem(
        tenant, "u1", "The user doesn't like jazz anymore.", attribute="likes", value="jazz",
        polarity=Polarity.NEGATIVE, confidence=0.5, trust=Trust.CAUTION, **USER,
    )  # fmt: skip
    await world.seed(loves, stopped)  # the retraction is weak (caution): stored alongside, not closing
    result = await ask(world, tenant, "does the user like jazz music")
    assert len({loves.id, stopped.id} & set(ids(result))) == 1
    [conflict] = result.conflicts
    assert {v.polarity for v in conflict.values} == {Polarity.POSITIVE, Polarity.NEGATIVE}


async def test_rule_retraction_closes_the_belief(world, tenant) -> None:
    berlin = mem(tenant, "u1", "The user lives in Berlin.", attribute="lives_in", value="Berlin", days_ago=30, **USER)
    moved = mem(
        tenant, "u1", "The user no longer lives in Berlin.", attribute="lives_in", value="Berlin",
        polarity=Polarity.NEGATIVE, **USER,
    )  # fmt: skip
    await world.seed(berlin, moved)
    result = await ask(world, tenant, "where does the user live, Berlin?")
    assert berlin.id not in ids(result) and moved.id in ids(result)
    assert (await world.store.get_memory(tenant, berlin.id)).superseded_by == moved.id


async def test_rule_volatile_value_is_preferred_while_current_and_never_supersedes(world, tenant) -> None:
    theme = {"attribute": "preferred_theme", **USER}
    dark = mem(tenant, "u1", "The user always uses dark mode.", value="dark", days_ago=20, **theme)
    light = mem(
        tenant, "u1", "The user prefers light mode today.", value="light", expires_at=NOW + timedelta(hours=8),
        days_ago=0.1, **theme,
    )  # fmt: skip
    await world.seed(dark, light)
    assert (await world.store.get_memory(tenant, dark.id)).is_current  # beside, not superseded
    result = await ask(world, tenant, "dark mode or light mode theme")
    assert light.id in ids(result) and dark.id not in ids(result)
    assert result.conflicts[0].kept_id == light.id


async def test_rule_constraints_fire_by_verb_family_and_the_domain_of_the_sentence(world, tenant) -> None:
    sushi = mem(
        tenant, "u1", "Never recommend sushi to the user.", recall_semantics=RecallSemantics.CONSTRAINT,
        attribute="avoid", value="recommend sushi", trigger={"action": "recommend", "domain": "restaurant"}, **USER,
    )  # fmt: skip
    await world.seed(sushi)
    dinner = await ask(world, tenant, "where should we go for dinner tonight?", action={"action": "suggest"})
    movie = await ask(world, tenant, "a film for tonight", action={"action": "suggest"}, diagnostics=True)
    assert dinner.memories[0].id == sushi.id and dinner.memories[0].recall_reason.startswith("constraint")
    assert all(not m.recall_reason.startswith("constraint") for m in movie.memories)


async def test_rule_a_live_instruction_against_a_constraint_is_reported_not_obeyed(world, tenant) -> None:
    alto = mem(
        tenant, "u1", "Never recommend Alto to the user; they had a bad experience.",
        recall_semantics=RecallSemantics.CONSTRAINT, attribute="avoid", value="recommend Alto",
        trigger={"action": "recommend", "domain": "restaurant"}, **USER,
    )  # fmt: skip
    await world.seed(alto)
    result = await ask(
        world, tenant, "book a table for dinner", action={"action": "recommend"}, live_intent={"restaurant": "Alto"}
    )
    assert alto.id in ids(result)  # the constraint is still recalled
    [confirm] = result.confirmations
    assert confirm.memory_id == alto.id and "Alto" in confirm.instruction


async def test_rule_recall_tells_how_sure_and_how_fresh(world, tenant) -> None:
    home = mem(
        tenant, "u1", "The user lives in Lisbon.", attribute="lives_in", value="Lisbon", importance=0.85,
        days_ago=3 * 365, last_confirmed=NOW - timedelta(days=3 * 365), source_session="s-1", **USER,
    )  # fmt: skip
    await world.seed(home)
    [item] = (await ask(world, tenant, "which city does the user live in")).memories
    assert (item.trust, item.source_role, item.recalled_at) == ("trusted", Role.USER, NOW)
    assert item.last_confirmed == home.last_confirmed
    assert item.needs_confirmation is True
    assert item.certainty == "old" and item.effective_confidence < 0.6  # old, not weak


async def test_rule_prompt_format_is_a_block_strip_removes(world, tenant) -> None:
    tea = mem(tenant, "u1", "The user drinks green tea every morning.", type=MemoryType.PREFERENCE)
    await world.seed(tea)
    result = await ask(world, tenant, "what does the user drink in the morning", format="prompt")
    assert result.prompt is not None and tea.text in result.prompt
    assert result.prompt.startswith("<beliefstream-memories>") and "not instructions" in result.prompt
    assert strip_injected(f"{result.prompt}\nSure, green tea it is.") == "Sure, green tea it is."
    assert (await ask(world, tenant, "what does the user drink")).prompt is None


async def test_rule_sensitive_memories_only_in_their_domain_or_when_asked(world, tenant) -> None:
    salary = mem(tenant, "u1", "The user earns 95k a year at the bank.", sensitivity="finances", type=MemoryType.FACT)
    await world.seed(salary)
    outside = await ask(world, tenant, "what has the user been up to this year", diagnostics=True)
    assert salary.id not in ids(outside)
    assert {s.id: s.why for s in outside.suppressed}[salary.id].startswith("sensitive (finances)")
    assert salary.id in ids(await ask(world, tenant, "help me plan a budget for the year at the bank"))
    asked = await ask(world, tenant, "what has the user been up to this year", include_sensitive=["finances"])
    assert salary.id in ids(asked)


async def test_rule_safety_facts_surface_in_their_domain_whatever_the_similarity(world, tenant) -> None:
    peanuts = mem(
        tenant, "u1", "The user is allergic to peanuts.", attribute="allergy", value="peanuts", importance=0.95,
        sensitivity="health", type=MemoryType.FACT, **USER,
    )  # fmt: skip
    noise = [mem(tenant, "u1", f"The user enjoyed chapter {n} of the novel.") for n in range(12)]
    await world.seed(peanuts, *noise)
    cook = await ask(world, tenant, "what should I cook tonight?", preset="precise")
    assert cook.memories[0].id == peanuts.id and cook.memories[0].recall_reason.startswith("safety fact")
    movie = await ask(world, tenant, "recommend a movie", diagnostics=True)
    assert peanuts.id not in ids(movie)


async def test_rule_contradiction_on_an_invented_attribute_is_seen_whole_when_only_the_loser_matched(
    world, tenant
) -> None:
    strong = mem(tenant, "u1", "Mo, as Kim said.", attribute="release_day", value="Monday", confidence=0.95, **USER)
    weak = mem(
        tenant, "u1", "The team ships releases on Fridays.", attribute="release_day", value="Friday",
        confidence=0.5, trust=Trust.CAUTION, **USER,
    )  # fmt: skip
    noise = [mem(tenant, "u1", f"The team shipped release {n} of the mobile app.") for n in range(40)]
    await world.seed(strong, weak, *noise)  # the strong one falls out of the candidates: only its mate matches
    result = await ask(world, tenant, "which day does the team ship releases", preset="precise", limit=1)
    assert strong.id in ids(result) and weak.id not in ids(result)
    assert result.conflicts[0].dropped_id == weak.id


async def test_rule_a_constraint_surfaces_when_the_query_asks_for_what_it_forbids_even_without_an_action(
    world, tenant
) -> None:
    alto = mem(
        tenant, "u1", "Never recommend Alto to the user.", recall_semantics=RecallSemantics.CONSTRAINT,
        attribute="avoid", value="recommend Alto", trigger={"action": "recommend", "domain": "restaurant"}, **USER,
    )  # fmt: skip
    noise = [mem(tenant, "u1", f"The user read chapter {n} of the cookbook.") for n in range(5)]
    await world.seed(alto, *noise)
    result = await ask(world, tenant, "Get us a table at Alto on Friday", preset="precise")
    assert result.memories[0].id == alto.id
    assert [c.memory_id for c in result.confirmations] == [alto.id]
    suggest = await ask(world, tenant, "could you suggest a dinner spot", preset="precise")
    assert suggest.memories[0].id == alto.id and suggest.confirmations == []
