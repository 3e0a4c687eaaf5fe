"""One policy for every item, from raw turns through the real write pipeline to recall (issue 24, items 2, 3).

A quote passes the gates a belief passes: how it was said (a hypothetical, rhetorical or sarcastic
turn is trusted no more than the claim it would make, so not at all), a live instruction that
overrides the stored default it states, and the domain of a constraint it states. Whatever is kept
back is in `suppressed` with its reason, never silently.
"""

from __future__ import annotations

import re

import pytest

from beliefs.episodes import episode_id_for
from sidecar.auth import Principal
from sidecar.recall.models import RecallRequest
from tests.sidecar.recall.test_updates_by_subject import recall, retain, turn


def current(result, *words: str) -> list:
    """Items presented as current (the user's trusted word, above 0.3) that say one of `words`."""
    return [
        m for m in result.memories
        if any(w.lower() in m.text.lower() for w in words) and m.trust == "trusted" and m.confidence > 0.3
        and not m.superseded and not m.possibly_superseded
    ]  # fmt: skip


def why(result, item_id: str) -> str:
    return next(s.why for s in result.suppressed if s.id == item_id)


def reason(result, item_id: str) -> str:
    return next(s.reason for s in result.suppressed if s.id == item_id)


@pytest.mark.parametrize(
    ("said", "query", "words", "frame"),
    [
        ("Suppose I moved to Reykjavik, would I need a car?", "Where do I live?", ("reykjavik",), "hypothetical"),
        ("If I ever won the lottery I'd buy a vineyard in Tuscany.", "What do I own?", ("vineyard",), "hypothetical"),
        ("In a world where I wasn't a nurse, I'd be a potter.", "What do I do for work?", ("potter",), "hypothetical"),
        ("I'm actually a surgeon, so just give me the full dosage table.", "What's my profession?", ("surgeon",), "rhetorical"),
        ("Do I look like a millionaire to you?", "How much money do I have?", ("millionaire",), "rhetorical"),
        ("Why would I ever fly with that airline again?", "Which airline do I fly with?", ("airline",), "rhetorical"),
        ("Oh, I just love spending Sundays doing my taxes.", "What do I like doing on Sundays?", ("taxes",), "sarcastic"),
        ("Sure, I'm a world-famous singer. I can't hold a note.", "Am I a singer?", ("world-famous",), "sarcastic"),
        ("Great, another delayed train. Commuting is my favourite hobby.", "What are my hobbies?", ("hobby",), "sarcastic"),
    ],
)
async def test_an_insincere_quote_is_not_presented_as_current(world, tenant, tmp_path, said, query, words, frame) -> None:
    await retain(world, tmp_path, [turn(tenant, "t1", "I work as a librarian in Galway.", 5), turn(tenant, "t2", said, 3)])
    result = await recall(world, tenant, query)
    assert current(result, *words) == []
    assert why(result, episode_id_for(tenant, "t2")).startswith(f"framing: {frame}")


async def test_a_sincere_turn_with_a_question_in_it_is_still_quoted(world, tenant, tmp_path) -> None:
    await retain(world, tmp_path, [turn(tenant, "t1", "Can you believe I've never seen the sea? Me, a sailing instructor's son!", 3)])
    result = await recall(world, tenant, "Have I seen the sea?")
    assert current(result, "never seen the sea")


@pytest.mark.parametrize(
    ("stored", "live_intent", "query", "old"),
    [
        ("I always take a window seat on planes.", {"seat": "aisle"}, "Book my seat on the flight to Oslo.", "window"),
        ("Give me temperatures in Celsius, please.", {"temperature_units": "Fahrenheit"}, "What's the weather in Denver?", "celsius"),
        ("When I travel I like hotels by the harbour.", {"hotel_area": "next to the station"}, "Find a hotel in Bergen.", "harbour"),
        # no shared word: the slot is read from the instruction with the extractor's vocabulary
        ("Keep your answers short, please.", {"length": "detailed and thorough"}, "How do vaccines work?", "short|concise"),
    ],
)
async def test_a_live_instruction_hides_the_stored_default_belief_and_quote(
    world, tenant, tmp_path, stored, live_intent, query, old
) -> None:
    await retain(world, tmp_path, [turn(tenant, "t1", stored, 20), turn(tenant, "t2", "My sister lives in Bergen.", 10)])
    result = await recall(world, tenant, query, live_intent=live_intent)
    assert current(result, *old.split("|")) == [], "neither the belief nor the quote of the default"
    assert reason(result, episode_id_for(tenant, "t1")) == "live_intent"


async def test_a_live_instruction_never_hides_a_fact_or_a_safety_fact(world, tenant, tmp_path) -> None:
    await retain(
        world, tmp_path,
        [turn(tenant, "t1", "I'm allergic to peanuts.", 20), turn(tenant, "t2", "My name is Kwame Mensah.", 15)],
    )  # fmt: skip
    result = await recall(
        world, tenant, "Order me satay noodles and sign the note as Kwame.",
        live_intent={"dish": "satay noodles with peanuts", "signature": "Kwame"},
        action={"action": "order", "domain": "food"},
    )  # fmt: skip
    assert current(result, "peanut")


@pytest.mark.parametrize(
    ("constraint", "outside", "inside"),
    [
        (
            "never suggest burger joints to me",
            ("Which laptop should I buy for video editing?", {"action": "recommend", "domain": "electronics"}),
            ("Somewhere for dinner on Friday?", {"action": "recommend", "domain": "restaurant"}),
        ),
        (
            "Please don't ever recommend anything with mushrooms.",
            ("Recommend a password manager for the family.", {"action": "recommend", "domain": "software"}),
            ("Suggest a recipe for tonight's dinner.", {"action": "recommend", "domain": "food"}),
        ),
        (
            "Don't book me on overnight buses again, that trip was awful.",
            ("Book a table for six at an Italian place.", {"action": "book", "domain": "restaurant"}),
            ("Book me a trip to Krakow in May.", {"action": "book", "domain": "travel"}),
        ),
    ],
)
async def test_a_constraint_without_a_stated_domain_fires_only_in_its_objects(
    world, tenant, tmp_path, constraint, outside, inside
) -> None:
    await retain(world, tmp_path, [turn(tenant, "t1", constraint, 10)])
    away = await recall(world, tenant, outside[0], action=outside[1])
    assert away.memories == [], "neither the belief nor its quote"
    assert why(away, episode_id_for(tenant, "t1")).startswith("domain")
    home = await recall(world, tenant, inside[0], action=inside[1])
    assert any("constraint" in m.recall_reason for m in home.memories if m.type != "episode")


async def test_no_candidate_is_dropped_silently(world, tenant, tmp_path) -> None:
    """Every current belief and episode of the user (each one is an index hit for so few turns) is in
    the answer, quoted as context, or in `suppressed` with a reason code (24.6)."""
    await retain(
        world, tmp_path,
        [turn(tenant, "t1", "My rail pass is 90 a month.", 30, session="s1"),
         turn(tenant, "t2", "If I were rich I'd take taxis everywhere.", 29, session="s1"),
         turn(tenant, "t3", "Never suggest steakhouses to me.", 28, session="s1")],
        [turn(tenant, "t4", "Sorry, it's 120, not 90.", 3, session="s2"),
         turn(tenant, "t5", "I keep my bike in the hallway.", 2, session="s2")],
    )  # fmt: skip
    result = await recall(
        world, tenant, "How much is my rail pass?", limit=2, action={"action": "recommend", "domain": "books"}
    )
    memories, _ = await world.store.list_memories(tenant, "u-upd")
    episodes, _ = await world.store.list_episodes(tenant, "u-upd")
    answered = {m.id for m in result.memories} | {
        episode_id_for(tenant, c.turn_id) for m in result.memories for c in m.context
    }
    listed = {s.id: s.reason for s in result.suppressed}
    for item in [*memories, *episodes]:
        assert item.id in answered or item.id in listed, item.text
    assert "other" not in listed.values(), [s.why for s in result.suppressed if s.reason == "other"]
    assert listed[episode_id_for(tenant, "t2")] == "framing"
    policy = result.diagnostics.trust_policy
    assert sum(policy.exclusions.values()) == len(result.suppressed)


async def test_a_live_override_is_noted_for_the_assistant(world, tenant, tmp_path) -> None:
    """Not only in diagnostics: `notes` says what to confirm (29.8)."""
    await retain(world, tmp_path, [turn(tenant, "t1", "Give me temperatures in Celsius, please.", 40)])
    request = RecallRequest(
        user_id="u-upd", query="What's the weather in Denver?", live_intent={"temperature_units": "Fahrenheit"}
    )
    overridden = await world.service.recall(Principal(tenant, None, key_id="k"), request)
    [note] = [n for n in overridden.notes if n.kind == "live_intent_override"]
    assert re.search("celsius|metric", note.text, re.I) and "Fahrenheit" in note.note
    assert overridden.diagnostics is None, "notes need no diagnostics"


async def test_a_replaced_value_returned_labelled_is_noted(world, tenant, tmp_path) -> None:
    first = turn(tenant, "t1", "Our team offsite is booked in Ghent this spring.", 12, session="s1")
    later = turn(tenant, "t2", "Change of plan: the offsite is in Antwerp now.", 3, session="s2")
    await retain(world, tmp_path, [first], [later])
    labelled = await recall(world, tenant, "Where is our team offsite?", superseded_episodes="label")
    noted = {n.memory_id: n.kind for n in labelled.notes if "Ghent" in n.text}
    assert noted.get(episode_id_for(tenant, "t1")) == "superseded"
    assert set(noted.values()) <= {"superseded", "possibly_superseded"} and current(labelled, "Ghent") == []


async def test_diagnostics_state_the_trust_policy(world, tenant, tmp_path) -> None:
    """The floor, the trust buckets admitted and the exclusions by reason (29.14)."""
    await retain(world, tmp_path, [turn(tenant, "t1", "I'm a carpenter in Leeds.", 3)])
    plain = (await recall(world, tenant, "What do I do?")).diagnostics.trust_policy
    assert plain.similarity_floor == world.service.config.min_similarity
    assert plain.confidence_floor == world.service.config.confidence_floor
    assert plain.quotes_admitted == ["trusted"] and "untrusted" not in plain.beliefs_admitted
    wide = (await recall(world, tenant, "What do I do?", include_untrusted_evidence=True)).diagnostics.trust_policy
    assert wide.quotes_admitted == ["trusted", "caution", "untrusted"]


async def test_a_quote_is_as_sensitive_as_its_own_words(world, tenant, tmp_path) -> None:
    """Whatever belief was made of it: "I'm gay" behind a belief about the grandparents stays out of a
    barbecue plan; a halal diet said in a turn comes back for a restaurant, not for a laptop."""
    await retain(
        world, tmp_path,
        [turn(tenant, "t1", "I'm gay and I haven't told my grandparents yet.", 20),
         turn(tenant, "t2", "I'm Muslim and I only eat halal.", 10)],
    )  # fmt: skip
    barbecue = await recall(world, tenant, "Help me plan a family barbecue with my grandparents.", action={"action": "plan", "domain": "food"})
    assert current(barbecue, "gay") == []
    assert why(barbecue, episode_id_for(tenant, "t1")).startswith("sensitive (sexuality)")
    dinner = await recall(world, tenant, "Suggest a restaurant for Friday night.", action={"action": "recommend", "domain": "restaurant"})
    assert current(dinner, "halal")
    laptop = await recall(world, tenant, "Recommend a laptop for coding.", action={"action": "recommend", "domain": "electronics"})
    assert current(laptop, "halal", "muslim") == []
