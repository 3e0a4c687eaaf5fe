"""Recall and contradiction loops: an open one is reported in `conflicts`, never recalled; a resolved
one gives the named context's value, else the default; a `topic` naming a context gets its value."""

from __future__ import annotations

import pytest

from beliefs import loops
from beliefs.records import MemoryState, RecallSemantics, Trust, Visibility
from sidecar.auth import Principal
from sidecar.recall import policy
from sidecar.recall.config import BALANCED
from sidecar.recall.fusion import Signals
from sidecar.recall.models import RecallRequest
from sidecar.recall.result import to_result
from sidecar.recall.select import select
from sinks.recall import OpenContest, RecallScope
from tests.sidecar.recall.seeding import NOW, mem, sync_vectors

SLOT = {"entity": "user", "attribute": "preferred_meeting_time"}
EDITOR = {"entity": "user", "attribute": "preferred_editor"}


def meta(value: str, context: str | None, **fields):
    text = f"User prefers {value} meetings" + (f" for {context}." if context else " (default).")
    return mem("t", "u", text, value=value, context=context, importance=0.95, confidence=0.95, **SLOT, **fields)


DEFAULT = meta("afternoon", None)
CONSULTING = meta("morning", "consulting")
MAIN_JOB = meta("late afternoon", "main job")
GROUP = [DEFAULT, CONSULTING, MAIN_JOB]


def suppressed(named: frozenset[str], memories=GROUP) -> set[str]:
    return set(policy.context_mismatches(memories, named))


def test_no_named_context_keeps_the_default_and_suppresses_context_values():
    named = policy.named_contexts(None, {}, "schedule my team sync")
    assert suppressed(named) == {CONSULTING.id, MAIN_JOB.id}
    assert all(why.startswith("context mismatch") for why in policy.context_mismatches(GROUP, named).values())


@pytest.mark.parametrize(
    ("topic", "intent", "query"),
    [
        ("consulting", {}, ""),
        ("Consulting", {}, ""),
        (None, {"context": "consulting"}, ""),
        (None, {"Context": "Consulting"}, ""),
        (None, {}, "book a consulting call for Monday"),
        (None, {}, "Consulting: when should we meet?"),
    ],
)
def test_a_named_context_keeps_its_value_and_suppresses_the_others(topic, intent, query):
    named = policy.named_contexts(topic, intent, query)
    assert suppressed(named) == {DEFAULT.id, MAIN_JOB.id}


def test_a_multi_word_context_is_named_by_all_its_words():
    assert suppressed(policy.named_contexts(None, {}, "a sync for my main job")) == {DEFAULT.id, CONSULTING.id}
    assert suppressed(policy.named_contexts(None, {}, "the main thing")) == {CONSULTING.id, MAIN_JOB.id}


def test_a_context_word_inside_another_word_does_not_name_it():
    assert suppressed(policy.named_contexts(None, {}, "consultingfirm sync")) == {CONSULTING.id, MAIN_JOB.id}


def test_without_a_default_and_without_a_named_context_nothing_is_decided():
    assert suppressed(policy.named_contexts(None, {}, "meetings"), [CONSULTING, MAIN_JOB]) == set()


def test_a_single_context_or_other_attributes_are_untouched():
    other = mem("t", "u", "User prefers vim.", entity="user", attribute="preferred_editor", value="vim")
    named = policy.named_contexts("consulting", {}, "")
    assert suppressed(named, [DEFAULT, other]) == set()
    likes = [mem("t", "u", "likes a", entity="user", attribute="likes", value="a", context="x"),
             mem("t", "u", "likes b", entity="user", attribute="likes", value="b")]
    assert suppressed(policy.named_contexts(None, {}, ""), likes) == set()


def _select(query: str, matched, memories=GROUP, contests=(), **request):
    # matched by meaning and words (a keyword hit alone is evidence only when the text holds a query term)
    signals = {m.id: Signals(relevance=1.0, dense_rank=1, dense_score=0.5, keyword_rank=1) for m in matched}
    return select(
        RecallRequest(user_id="u", query=query, **request),
        BALANCED,
        NOW,
        RecallScope(tenant_id="t", user_id="u"),
        signals,
        memories,
        [],
        contests,
    )


def test_select_returns_the_default_when_the_query_matched_a_context_value():
    chosen = _select("schedule my team sync meetings", [CONSULTING])
    assert [e.memory.id for e in chosen.chosen] == [DEFAULT.id]
    assert dict(chosen.suppressed)[CONSULTING.id].startswith("context mismatch")
    assert chosen.conflicts == []


def test_select_returns_the_contexts_value_when_the_request_names_it():
    chosen = _select("schedule a sync", [DEFAULT], live_intent={"context": "consulting"})
    assert [e.memory.id for e in chosen.chosen] == [CONSULTING.id]
    assert {DEFAULT.id, MAIN_JOB.id} <= set(dict(chosen.suppressed))


# -- topic: narrows ordinary candidates, never a named context's value ------------------------------


def test_topic_cuts_ordinary_memories_but_spares_profile_constraints_and_named_context_values():
    named = policy.named_contexts("work", {}, "")
    plain = mem("t", "u", "The user jogs.", topic="health")
    assert policy.outside_topic(plain, "work", named) == "outside topic 'work'"
    assert policy.outside_topic(plain, "Health", named) is None
    assert policy.outside_topic(plain, None, named) is None
    assert policy.outside_topic(plain.model_copy(update={"profile": True}), "work", named) is None
    constraint = plain.model_copy(update={"recall_semantics": RecallSemantics.CONSTRAINT})
    assert policy.outside_topic(constraint, "work", named) is None
    for_work = mem("t", "u", "User's editor is vim for work.", topic="tech", context="Work", **EDITOR)
    assert policy.outside_topic(for_work, "work", named) is None
    assert policy.outside_topic(for_work, "health", policy.named_contexts("health", {}, "")) is not None


def test_topic_naming_a_context_keeps_that_contexts_value_outside_the_topic():
    chosen = _select("schedule a sync", [DEFAULT, CONSULTING], topic="consulting", diagnostics=True)
    assert [e.memory.id for e in chosen.chosen] == [CONSULTING.id]  # filed under "personal"
    assert dict(chosen.suppressed)[DEFAULT.id].startswith("context mismatch")


def test_topic_naming_no_context_cuts_a_slot_nothing_in_the_topic_opened():
    chosen = _select("schedule a sync", [DEFAULT], topic="health")
    assert chosen.chosen == []
    assert dict(chosen.suppressed)[DEFAULT.id] == "outside topic 'health'"


def test_a_match_inside_the_topic_opens_its_slot_to_a_stronger_value_outside_it():
    at_work = mem("t", "u", "At work the user edits in Emacs.", topic="work", value="emacs",
                  confidence=0.6, trust=Trust.CAUTION, **EDITOR)  # fmt: skip
    stronger = mem("t", "u", "The user edits in Vim.", topic="tech", value="vim", confidence=0.95, **EDITOR)
    chosen = _select("editor at work", [at_work, stronger], [at_work, stronger], topic="work")
    assert [e.memory.id for e in chosen.chosen] == [stronger.id]
    assert [(c.kept_id, c.dropped_id) for c in chosen.conflicts] == [(stronger.id, at_work.id)]


def test_a_multi_valued_attribute_opens_no_slot_across_topics():
    likes = {"entity": "user", "attribute": "likes"}
    at_work = mem("t", "u", "The user likes standups.", topic="work", value="standups", **likes)
    at_home = mem("t", "u", "The user likes gardening.", topic="personal", value="gardening", **likes)
    chosen = _select("what does the user like", [at_work, at_home], [at_work, at_home], topic="work")
    assert [e.memory.id for e in chosen.chosen] == [at_work.id]
    assert dict(chosen.suppressed)[at_home.id] == "outside topic 'work'"


# -- open contradiction loops: reported, never recalled -----------------------------------------------


def _contest(*memories) -> OpenContest:
    return OpenContest(contested_id="slot-1", entity="user", attribute="preferred_editor", memories=memories)


def test_open_contested_pair_is_reported_in_conflicts_in_the_one_conflict_shape():
    contested = {"state": MemoryState.CONTESTED, **EDITOR}
    vim, helix = (mem("t", "u", f"Prefers {v}.", value=v, **contested) for v in ["vim", "helix"])
    chosen = _select("which editor", [], [], contests=[_contest(vim, helix)])
    assert chosen.chosen == [] and chosen.conflicts == []
    [view] = to_result(chosen, {}, diagnostics=False).conflicts
    assert (view.kind, view.contested_id, view.attribute) == ("contested", "slot-1", "preferred_editor")
    assert [(v.memory_id, v.value) for v in view.values] == [(vim.id, "vim"), (helix.id, "helix")]
    assert (view.kept_id, view.dropped_id) == (None, None)
    assert view.why.startswith("contested: awaiting a decision")


def test_an_open_contest_names_only_memories_the_scope_may_see_and_that_are_current():
    shared = mem("t", "u", "Prefers vim.", value="vim", state=MemoryState.CONTESTED, **EDITOR)
    private = mem("t", "u", "Prefers helix.", value="helix", state=MemoryState.CONTESTED,
                  visibility=Visibility.AGENT, agent_id="other", **EDITOR)  # fmt: skip
    revoked = shared.model_copy(update={"id": "gone", "revoked_at": NOW})
    active = shared.model_copy(update={"id": "active", "state": MemoryState.ACTIVE})
    scope = RecallScope(tenant_id="t", user_id="u", agent_id="bot")
    [kept] = policy.open_contests([_contest(shared, private, revoked, active)], scope, NOW, 0.4)
    assert kept.memories == (shared,)
    assert policy.open_contests([_contest(private)], scope, NOW, 0.4) == []
    assert policy.open_contests([_contest(shared)], RecallScope(tenant_id="t", user_id="v"), NOW, 0.4) == []


# -- end to end: real store (both backends), index and embedder ---------------------------------------


async def open_loop(world, tenant: str, user: str = "u1") -> str:
    """`user` flipped editors vim → helix → vim → helix within days: an open contested slot."""
    for i, value in enumerate(["vim", "helix", "vim", "helix"]):
        text = f"The user prefers the {value} editor."
        await world.seed(mem(tenant, user, text, value=value, days_ago=8 - i, topic="tech", **EDITOR))
    (slot,) = await world.store.list_contested(tenant, user)
    return slot.id


async def resolve(world, tenant: str, slot_id: str, **choice) -> None:
    """Decide the slot as `POST /v1/contested/{id}/resolve` does, and index the meta-memories."""
    slot = await world.store.get_contested(tenant, slot_id)
    picked = loops.resolution_choices(choice.get("value"), choice.get("by_context"), choice.get("default"))
    texts = [loops.resolution_text(slot.attribute, value, context) for context, value in picked]
    embeddings = dict(zip(texts, world.embedder.embed(texts), strict=True))
    await world.store.resolve_contested(tenant, slot_id, at=NOW, embeddings=embeddings, **choice)
    await sync_vectors(world.store, world.index, {tenant})


async def recall(world, tenant: str, query: str, **body):
    return await world.service.recall(Principal(tenant), RecallRequest(user_id="u1", query=query, **body))


def texts(result) -> list[str]:
    return [m.text for m in result.memories]


async def test_open_contested_pair_is_reported_in_conflicts(world, tenant):
    slot_id = await open_loop(world, tenant)
    await open_loop(world, tenant, user="u2")
    light = mem(tenant, "u1", "The user likes the light colour theme.", value="light", confidence=0.9,
                entity="user", attribute="preferred_theme")  # fmt: skip
    dark = mem(tenant, "u1", "The user likes the dark colour theme.", value="dark", confidence=0.6,
               trust=Trust.CAUTION, entity="user", attribute="preferred_theme")  # fmt: skip
    await world.seed(light, dark)  # a caution-trust claim is stored alongside: a contradiction
    contested, _ = await world.store.list_memories(tenant, "u1", state=MemoryState.CONTESTED)

    query = "which editor and colour theme does the user like"
    result = await recall(world, tenant, query)

    assert texts(result) == [light.text]  # neither side of the loop
    by_kind = {c.kind: c for c in result.conflicts}
    assert set(by_kind) == {"contradiction", "contested"} and len(result.conflicts) == 2
    loop = by_kind["contested"]
    assert (loop.contested_id, loop.entity, loop.attribute) == (slot_id, "user", "preferred_editor")
    assert {(v.memory_id, v.value) for v in loop.values} == {(m.id, m.value) for m in contested}
    assert {v.value for v in loop.values} == {"vim", "helix"}
    assert loop.kept_id is None and loop.why.startswith("contested: awaiting a decision")
    contradiction = by_kind["contradiction"]
    assert [v.memory_id for v in contradiction.values] == [light.id, dark.id] == [
        contradiction.kept_id, contradiction.dropped_id
    ]  # fmt: skip
    assert set(loop.model_dump()) == set(contradiction.model_dump())  # one shape
    narrowed = await recall(world, tenant, query, topic="health")  # a topic never hides a loop
    assert texts(narrowed) == [] and [c.contested_id for c in narrowed.conflicts] == [slot_id]


async def test_resolved_contested_pair_returns_its_value_and_no_conflict(world, tenant):
    slot_id = await open_loop(world, tenant)
    await resolve(world, tenant, slot_id, value="helix")
    result = await recall(world, tenant, "which editor does the user prefer")
    assert texts(result) == ["User's preferred editor is helix (default)."]
    assert result.conflicts == []


async def test_topic_naming_a_context_gets_that_contexts_value(world, tenant):
    slot_id = await open_loop(world, tenant)
    await resolve(world, tenant, slot_id, by_context={"work": "vim"}, default="helix")
    query = "which editor should I use?"

    work = await recall(world, tenant, query, topic="work")  # the meta-memories are filed under tech
    assert texts(work) == ["User's preferred editor is vim for work."]
    default = ["User's preferred editor is helix (default)."]
    assert texts(await recall(world, tenant, query)) == default
    assert texts(await recall(world, tenant, query, topic="tech")) == default
    health = await recall(world, tenant, query, topic="health", diagnostics=True)
    assert texts(health) == [] and "outside topic 'health'" in {s.why for s in health.suppressed}
