"""Recall's ranking rules end to end (real SQL store, Qdrant Edge, the real embedder), one test each."""

from __future__ import annotations

from beliefs.records import MemoryType
from sidecar.auth import Principal
from sidecar.recall.config import BALANCED
from sidecar.recall.models import RecallRequest
from tests.sidecar.recall.seeding import mem

ALLERGY = {"entity": "user", "attribute": "allergy", "value": "peanuts", "type": MemoryType.FACT}


async def ask(world, tenant: str, query: str, **body):
    request = RecallRequest(user_id="u1", query=query, diagnostics=True, **body)
    return await world.service.recall(Principal(tenant, None, key_id="k"), request)


async def test_the_readme_allergy_comes_back_for_what_should_i_cook(world, tenant) -> None:
    allergy = mem(tenant, "u1", "User is allergic to peanuts.", importance=0.9, **ALLERGY)
    await world.seed(allergy)
    result = await ask(world, tenant, "what should I cook tonight?")
    [item] = result.memories
    assert item.id == allergy.id
    assert "safety fact for a food request" in item.recall_reason  # its tier, not its importance
    assert result.suppressed == []


async def test_importance_outranks_a_more_similar_but_trivial_memory(world, tenant) -> None:
    allergy = mem(tenant, "u1", "User is allergic to peanuts.", importance=0.9, **ALLERGY)
    trivial = mem(tenant, "u1", "User bought a new frying pan.", importance=0.2, type=MemoryType.FACT)
    await world.seed(allergy, trivial)
    result = await ask(world, tenant, "what should I cook tonight?")
    by_score = sorted(result.memories, key=lambda m: -m.score)
    cosine = {m.id: m.sources.dense_score for m in result.memories}
    assert cosine[trivial.id] > cosine[allergy.id]  # the trivial one is the more similar
    assert [m.id for m in by_score] == [allergy.id, trivial.id]


async def test_no_silent_floor_a_dropped_candidate_is_listed_with_its_cosine(world, tenant) -> None:
    trivial = mem(tenant, "u1", "User once saw a purple umbrella.", importance=0.2, type=MemoryType.FACT)
    await world.seed(trivial)
    result = await ask(world, tenant, "quarterly tax filing deadline for my company")
    assert result.memories == []
    [why] = [s.why for s in result.suppressed if s.id == trivial.id]
    assert why.startswith("below the similarity floor (cosine") and f"< {BALANCED.min_similarity})" in why
    policy = result.diagnostics.trust_policy
    assert (policy.similarity_floor, policy.keyword_similarity_floor) == (BALANCED.min_similarity, BALANCED.keyword_min_similarity)
    assert policy.floor_bypass_importance is None


async def test_relevance_reported_is_a_similarity_not_one_for_the_top_hit(world, tenant) -> None:
    only = mem(tenant, "u1", "User prefers window seats on trains.", importance=0.2)
    await world.seed(only)
    result = await ask(world, tenant, "which seat do I like on the train?")
    [item] = result.memories
    assert 0.2 < item.sources.relevance < 0.95
    assert item.sources.relevance >= item.sources.dense_score  # keyword similarity only adds to it


async def test_importance_orders_what_is_relevant_and_brings_in_nothing_else(world, tenant) -> None:
    job = mem(tenant, "u1", "User works as a structural engineer at Arup.", importance=0.9, type=MemoryType.FACT)
    hobby = mem(tenant, "u1", "User plays the cello in an amateur orchestra.", importance=0.85, type=MemoryType.FACT)
    pet = mem(tenant, "u1", "User has a tabby cat called Miso.", importance=0.8, type=MemoryType.FACT)
    await world.seed(job, hobby, pet)
    for question in (
        "What's the capital of Peru?",
        "how many legs does a spider have",
        "Explain how a rainbow forms.",
        "Convert 3 miles to kilometres, please.",
    ):
        result = await ask(world, tenant, question)
        assert result.memories == [], question
        assert {s.id for s in result.suppressed} == {job.id, hobby.id, pet.id}
        assert all("similarity floor" in s.why for s in result.suppressed)
    asked = await ask(world, tenant, "what instrument do I play?")
    assert [m.id for m in asked.memories] == [hobby.id]


async def test_a_safety_or_sensitive_profile_fact_passes_without_relevance_only_in_its_domain(world, tenant) -> None:
    name = mem(tenant, "u1", "User's name is Ines.", importance=0.9, type=MemoryType.FACT, entity="user",
               attribute="name", value="Ines", profile=True)  # fmt: skip
    wheelchair = mem(tenant, "u1", "User uses a wheelchair.", importance=0.9, type=MemoryType.FACT, entity="user",
                     attribute="accessibility", value="wheelchair", profile=True, sensitivity="health")  # fmt: skip
    await world.seed(name, wheelchair)
    for question in ("What's a good spreadsheet template for a monthly budget?", "Recommend a sci-fi novel."):
        result = await ask(world, tenant, question)
        assert [m.id for m in result.memories] == [name.id], question  # the name addresses every answer
        assert wheelchair.id in {s.id for s in result.suppressed}
    trip = await ask(world, tenant, "Book me a hotel in Lyon for the conference.", action={"action": "book", "domain": "travel"})
    assert {m.id for m in trip.memories} == {name.id, wheelchair.id}
