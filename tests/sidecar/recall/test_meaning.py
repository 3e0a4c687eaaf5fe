"""Readings by meaning (issue 24, items 2 and 3): a constraint whose object no domain word places fires
only for requests of its kind, and a live instruction hides the stored default it speaks of, though the
two share no word; a live instruction about another slot leaves the default standing."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from beliefs.records import Memory, MemoryType, Polarity, RecallSemantics
from reading.sensitivity import is_safety_fact
from sidecar.recall import policy
from sidecar.recall.meaning import (
    LIVE_SLOT,
    LIVE_SLOT_FACT,
    kinship,
    live_slot_override,
    may_yield,
    profile,
    undomained_constraints,
)
from sidecar.recall.sensitivity_gate import sensitive_outside
from tests.sidecar.recall.test_updates_by_subject import recall, retain, turn

WHEN = datetime(2026, 5, 1, tzinfo=UTC)


def memory(text: str, **fields) -> Memory:
    base = dict(
        id=fields.pop("id", text[:12]), tenant_id="t", user_id="u", type=MemoryType.PREFERENCE, text=text,
        confidence=0.9, topic="personal", importance=0.5, created_at=WHEN, valid_from=WHEN,
    )  # fmt: skip
    return Memory(**(base | fields))


def constraint(obj: str, domain: str | None = None) -> Memory:
    trigger = {"action": "recommend", "object": obj} | ({"domain": domain} if domain else {})
    return memory(
        f"Never recommend {obj} to User.", recall_semantics=RecallSemantics.CONSTRAINT, trigger=trigger,
        value=f"recommend {obj}",
    )  # fmt: skip


# --- pure rules ---------------------------------------------------------------------------------------------


def test_kinship_is_how_alike_two_texts_lean_over_the_kinds_whatever_their_level() -> None:
    kinds = np.eye(3, dtype=np.float32)
    vectors = np.array([[0.6, 0.2, 0.1], [0.3, 0.1, 0.05], [0.1, 0.2, 0.6]], dtype=np.float32)
    strong, weak, other = profile(vectors, kinds)
    assert kinship(strong, weak) == pytest.approx(1.0), "the same lean at half the level is one kind"
    assert kinship(strong, other) < 0 < policy.SAME_KIND


def test_a_constraint_in_no_domain_we_name_follows_its_kinship() -> None:
    wanted = policy.RequestedAction("recommend")
    undomained = constraint("psychological thrillers")
    assert policy.fires(undomained, wanted, frozenset()), "no kinship read: the old rule (its action family)"
    assert policy.fires(undomained, wanted, frozenset(), kin=policy.SAME_KIND)
    assert not policy.fires(undomained, wanted, frozenset(), kin=policy.SAME_KIND / 2)
    assert policy.off_domain(undomained, wanted, frozenset(), kin=policy.SAME_KIND) is None
    why = policy.off_domain(undomained, wanted, frozenset(), kin=0.001)
    assert why is not None and why.startswith("domain: by meaning")


def test_only_constraints_words_cannot_place_are_read_by_meaning() -> None:
    placed = constraint("sushi")  # "sushi" is a food word
    stated = constraint("anything loud", domain="music")
    unplaced = constraint("Nike stuff")
    plain = memory("User likes Nike stuff.")
    assert undomained_constraints([placed, stated, unplaced, plain]) == {unplaced.id: unplaced.text}


def test_a_live_instruction_overrides_a_default_it_is_near_and_a_fact_only_when_plainly_about_it() -> None:
    default = memory("User likes their steak medium-rare.")
    fact = memory("User's race is on Sunday in Berlin.", type=MemoryType.FACT)
    assert live_slot_override(default, {"doneness: well done": LIVE_SLOT}) is not None
    assert live_slot_override(default, {"size: large": LIVE_SLOT - 0.05}) is None
    assert live_slot_override(fact, {"distance: 5 km": LIVE_SLOT_FACT - 0.05}) is None
    assert live_slot_override(fact, {"distance: 5 km": LIVE_SLOT_FACT}) is not None
    assert live_slot_override(default, {}) is None


def test_constraints_retractions_and_safety_facts_never_yield() -> None:
    assert may_yield(memory("User likes window seats."))
    assert not may_yield(constraint("cruises"))
    assert not may_yield(memory("User no longer eats meat.", polarity=Polarity.NEGATIVE))
    assert not may_yield(memory("User is allergic to sesame.", type=MemoryType.FACT))


# --- through the real pipeline and the real sentence model ---------------------------------------------------


@pytest.mark.parametrize(
    ("said", "bears", "apart", "word"),
    [
        ("Stop suggesting fantasy novels, dragons bore me.", "What should I read on my train journey?",
         "Recommend a cordless drill for putting up shelves.", "fantasy"),
    ],
)  # fmt: skip
async def test_a_constraint_without_a_domain_word_fires_only_for_its_kind(
    world, tenant, tmp_path, said, bears, apart, word
) -> None:
    await retain(world, tmp_path, [turn(tenant, "t1", said, 4)])
    near = await recall(world, tenant, bears)
    far = await recall(world, tenant, apart)
    assert any(word in m.text.lower() for m in near.memories)
    assert not any(word in m.text.lower() for m in far.memories)


async def test_a_live_instruction_hides_the_default_it_speaks_of_and_not_another(
    world, tenant, tmp_path
) -> None:
    await retain(
        world, tmp_path,
        [turn(tenant, "t1", "I prefer my tea with honey.", 6), turn(tenant, "t2", "I prefer hotel rooms away from the lift.", 5)],
    )  # fmt: skip
    swapped = await recall(
        world, tenant, "Make me a tea, with sugar today.", live_intent={"sweetener": "sugar"}
    )
    assert not any("honey" in m.text.lower() for m in swapped.memories)
    assert any("by meaning" in s.why for s in swapped.suppressed)
    other = await recall(world, tenant, "Book my hotel in Turin.", live_intent={"breakfast": "included"})
    assert any("lift" in m.text.lower() for m in other.memories)


# --- sensitive facts where they bear; safety facts; mental health is no safety fact ---------------------------


def test_a_profile_fact_of_a_special_category_is_gated_unless_it_is_a_safety_fact() -> None:
    adhd = memory("User has ADHD.", type=MemoryType.FACT, sensitivity="health", profile=True,
                  attribute="medical_condition")  # fmt: skip
    deaf = memory("User is deaf in one ear.", type=MemoryType.FACT, sensitivity="health", profile=True)
    assert sensitive_outside(adhd, frozenset({"book"})) is not None
    assert sensitive_outside(deaf, frozenset({"book"})) is None


@pytest.mark.parametrize(
    ("attribute", "text", "safety"),
    [
        ("medical_condition", "User has bipolar disorder.", False),
        ("medical_condition", "User was diagnosed with depression last year.", False),
        (None, "User has an eating disorder and avoids talk of calories.", False),
        ("medical_condition", "User has epilepsy.", True),
        (None, "User is hard of hearing.", True),
        (None, "User is allergic to kiwi.", True),
    ],
)
def test_a_mental_health_condition_is_no_safety_fact(attribute, text, safety) -> None:
    assert is_safety_fact(attribute, text) is safety
