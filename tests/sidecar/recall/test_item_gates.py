"""One policy for every item, from raw turns through the real write pipeline to recall (issue 24, items 2, 3).

A quote passes the gates a belief passes: how it was said (a hypothetical, rhetorical or sarcastic
turn is trusted no more than the claim it would make, so not at all), a live instruction that
overrides the stored default it states, and the domain of a constraint it states. Whatever is kept
back is in `suppressed` with its reason, never silently.
"""

from __future__ import annotations

import pytest

from beliefs.episodes import episode_id_for
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
    ],
)
async def test_a_live_instruction_hides_the_stored_default_belief_and_quote(
    world, tenant, tmp_path, stored, live_intent, query, old
) -> None:
    await retain(world, tmp_path, [turn(tenant, "t1", stored, 20), turn(tenant, "t2", "My sister lives in Bergen.", 10)])
    result = await recall(world, tenant, query, live_intent=live_intent)
    assert current(result, old) == [], "neither the belief nor the quote of the default"
    assert why(result, episode_id_for(tenant, "t1")).startswith("live_intent")


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
