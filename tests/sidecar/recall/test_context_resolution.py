"""Recall honours a resolved contradiction loop: the named context's value, else the default."""

from __future__ import annotations

import pytest

from sidecar.recall import policy
from sidecar.recall.config import BALANCED
from sidecar.recall.fusion import Signals
from sidecar.recall.models import RecallRequest
from sidecar.recall.select import select
from sinks.recall import RecallScope
from tests.sidecar.recall.seeding import NOW, mem

SLOT = {"entity": "user", "attribute": "preferred_meeting_time"}


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


def _select(query: str, matched, **request):
    signals = {m.id: Signals(keyword_rank=1, relevance=1.0) for m in matched}
    return select(
        RecallRequest(user_id="u", query=query, **request),
        BALANCED,
        NOW,
        RecallScope(tenant_id="t", user_id="u"),
        signals,
        GROUP,
        [],
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
