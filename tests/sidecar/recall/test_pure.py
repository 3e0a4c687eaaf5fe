"""The pure parts of recall: config presets, scoring, fusion, keywords, budget and order, policy."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest
from pydantic import ValidationError

from beliefs.age import days_since_confirmed, half_life_days, recency
from beliefs.confidence import effective_confidence
from beliefs.records import MemoryState, MemoryType, RecallSemantics, Trust, Visibility
from sidecar.recall import live_intent, policy
from sidecar.recall.budget import edge_order, edges_last, estimate_tokens, trim
from sidecar.recall.config import BALANCED, PRECISE, PRESETS, RECENT, RecallConfig, preset
from sidecar.recall.errors import UnknownPresetError
from sidecar.recall.fusion import Signals, fuse, grounded, stated_relevance
from sidecar.recall.keywords import query_terms
from sidecar.recall.scoring import recall_score, salience
from sinks.base import VectorHit
from sinks.recall import KeywordHit, RecallScope
from tests.sidecar.recall.seeding import NOW, mem

# -- config ------------------------------------------------------------------------------------------


def test_presets_are_named_frozen_and_never_mutated_by_tuning() -> None:
    assert set(PRESETS) == {"balanced", "precise", "recent"}
    assert preset("precise") is PRECISE
    tuned = BALANCED.tuned(min_similarity=0.5)
    assert tuned.min_similarity == 0.5 and BALANCED.min_similarity == 0.15
    with pytest.raises(ValidationError):
        BALANCED.min_similarity = 0.9  # type: ignore[misc]
    with pytest.raises(TypeError):
        PRESETS["x"] = BALANCED  # type: ignore[index]


def test_tuning_is_validated_and_unknown_presets_are_named_errors() -> None:
    with pytest.raises(ValidationError):
        BALANCED.tuned(relevance_weight=-1)
    with pytest.raises(ValidationError):
        RecallConfig(relevance_weight=0, confidence_weight=0, importance_weight=0, recency_weight=0)
    with pytest.raises(UnknownPresetError):
        preset("fastest")
    assert BALANCED.candidate_limit(20) == 80 and BALANCED.candidate_limit(2) == 32


# -- scoring -----------------------------------------------------------------------------------------


def test_effective_confidence_halves_per_half_life_since_last_confirmation() -> None:
    m = mem("t", "u", "x", days_ago=120, attribute="preferred_meeting_time", confidence=0.8)
    assert half_life_days(m) == 120
    assert effective_confidence(m, NOW) == pytest.approx(0.4)
    confirmed = m.model_copy(update={"last_confirmed": NOW - timedelta(days=0)})
    assert effective_confidence(confirmed, NOW) == pytest.approx(0.8)


def test_half_life_comes_from_the_row_then_the_attribute_then_the_type() -> None:
    assert half_life_days(mem("t", "u", "x", half_life_days=3.0, attribute="name")) == 3.0
    assert half_life_days(mem("t", "u", "x", attribute="name")) == 3650
    assert half_life_days(mem("t", "u", "x", attribute="located_in")) == 7
    assert half_life_days(mem("t", "u", "x", type=MemoryType.FACT)) == 365
    assert half_life_days(mem("t", "u", "x", half_life_days=0.0, type=MemoryType.DECISION)) == 180


def test_a_name_barely_decays_while_a_location_fades_within_weeks() -> None:
    name = mem("t", "u", "x", days_ago=30, attribute="name", confidence=0.9)
    place = mem("t", "u", "x", days_ago=30, attribute="located_in", confidence=0.9)
    assert effective_confidence(name, NOW) > 0.89
    assert effective_confidence(place, NOW) < 0.1


def test_age_is_never_negative_and_recency_is_one_now() -> None:
    future = mem("t", "u", "x", days_ago=-2)
    assert days_since_confirmed(future, NOW) == 0
    assert recency(future, NOW) == 1.0
    assert recency(mem("t", "u", "x", days_ago=120, attribute="preferred_meeting_time"), NOW) == pytest.approx(
        math.exp(-1)
    )


def test_salience_is_importance_times_decay_score() -> None:
    assert salience(mem("t", "u", "x", importance=0.8)) == 0.8
    assert salience(mem("t", "u", "x", importance=0.8, decay_score=0.5)) == pytest.approx(0.4)


def test_recall_score_is_the_normalized_weighted_blend() -> None:
    m = mem("t", "u", "x", days_ago=0, confidence=1.0, importance=1.0)
    assert recall_score(m, 1.0, NOW, BALANCED).value == pytest.approx(1.0)
    only_relevance = BALANCED.tuned(confidence_weight=0, importance_weight=0, recency_weight=0)
    assert recall_score(m, 0.3, NOW, only_relevance).value == pytest.approx(0.3)
    assert recall_score(m, 7.0, NOW, only_relevance).relevance == 1.0


def test_relevance_outweighs_confidence_in_balanced_and_recency_matters_in_recent() -> None:
    relevant = mem("t", "u", "x", confidence=0.6)
    solid = mem("t", "u", "y", confidence=1.0)
    assert recall_score(relevant, 0.9, NOW, BALANCED).value > recall_score(solid, 0.3, NOW, BALANCED).value
    old = mem("t", "u", "x", days_ago=60)
    new = mem("t", "u", "x", days_ago=1)
    gap_recent = recall_score(new, 0.5, NOW, RECENT).value - recall_score(old, 0.5, NOW, RECENT).value
    gap_precise = recall_score(new, 0.5, NOW, PRECISE).value - recall_score(old, 0.5, NOW, PRECISE).value
    assert gap_recent > gap_precise


# -- fusion and keywords -----------------------------------------------------------------------------


def test_fusion_rewards_agreement_and_keeps_relevance_a_similarity() -> None:
    dense = [VectorHit("a", 0.9), VectorHit("b", 0.8), VectorHit("c", 0.1)]
    keyword = [KeywordHit("b", 3.0), KeywordHit("d", 1.0)]
    fused = fuse(dense, keyword, BALANCED)
    assert fused["b"].relevance > fused["a"].relevance > fused["c"].relevance
    assert fused["b"].sources == "dense+keyword" and fused["d"].sources == "keyword"
    assert (fused["b"].dense_rank, fused["b"].keyword_rank, fused["b"].dense_score) == (2, 1, 0.8)
    assert fuse([VectorHit("a", 0.2)], [], BALANCED)["a"].relevance < fuse([VectorHit("a", 0.6)], [], BALANCED)["a"].relevance
    assert fuse([], [], BALANCED) == {}


def test_a_belief_is_as_relevant_as_the_best_turn_that_stated_it() -> None:
    signals = {"a": Signals(0.2, dense_rank=3, dense_score=0.26), "b": Signals(0.7, keyword_rank=1, keyword_score=1.0)}
    stated = stated_relevance([(["a", "b"], 0.5), (["a"], 0.6), ([], 0.9), (["z"], 0.8)])
    assert stated == {"a": 0.6, "b": 0.5, "z": 0.8}
    lifted = grounded(signals, stated)
    assert lifted["a"] == Signals(0.6, dense_rank=3, dense_score=0.26)  # raised; ranks and scores as found
    assert lifted["b"] is signals["b"]  # never lowered
    assert set(lifted) == {"a", "b"}  # a turn's belief the query did not find is not added


def test_query_terms_drop_stopwords_and_repeats() -> None:
    assert query_terms("What editor does the user prefer? Editor!") == ["editor", "prefer"]
    assert query_terms("") == [] and query_terms("a I the") == []


# -- budget and order --------------------------------------------------------------------------------


def test_token_estimate_is_a_quarter_of_the_characters_rounded_up() -> None:
    assert [estimate_tokens(t) for t in ("", "abc", "abcd", "abcde", "x" * 400)] == [1, 1, 1, 2, 100]


def test_budget_never_cuts_a_memory_and_skips_to_one_that_fits() -> None:
    result = trim([5, 8, 3, 2], cost=lambda n: n, budget_tokens=10, limit=10)
    assert result.kept == [5, 3, 2] and result.over_budget == [8] and result.tokens_used == 10
    limited = trim([1, 1, 1], cost=lambda n: n, budget_tokens=10, limit=2)
    assert limited.kept == [1, 1] and limited.over_limit == [1]


def test_edge_weighted_order_puts_the_two_most_important_at_the_edges() -> None:
    assert edge_order([1, 2, 3, 4, 5]) == [1, 3, 5, 4, 2]
    assert edge_order([1, 2]) == [1, 2] and edge_order([1]) == [1] and edge_order([]) == []
    assert edges_last([1, 2, 3, 4, 5]) == [2, 4, 5, 3, 1]  # after a head of its own, the best closes the block


# -- policy ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"state": MemoryState.SUPERSEDED}, "state superseded"),
        ({"valid_until": NOW}, "no longer valid"),
        ({"revoked_at": NOW}, "revoked"),
        ({"expires_at": NOW}, "expired"),
        ({"confidence": 0.39}, "confidence below the floor"),
        ({"trust": Trust.UNTRUSTED}, "untrusted source"),
        ({"trust": Trust.CAUTION, "expires_at": NOW + timedelta(seconds=1)}, None),
    ],
)
def test_currency_violations(fields, why) -> None:
    assert policy.currency_violation(mem("t", "u", "x", **fields), NOW, 0.4) == why


def test_scope_rules() -> None:
    scope = RecallScope("t", "u", agent_id="bot")
    assert not policy.out_of_scope(mem("t", "u", "x"), scope)
    assert policy.out_of_scope(mem("t2", "u", "x"), scope)
    assert policy.out_of_scope(mem("t", "u2", "x"), scope)
    assert not policy.out_of_scope(mem("t", "u", "x", visibility=Visibility.AGENT, agent_id="bot"), scope)
    assert policy.out_of_scope(mem("t", "u", "x", visibility=Visibility.AGENT, agent_id="spy"), scope)
    assert policy.out_of_scope(
        mem("t", "u", "x", visibility=Visibility.AGENT, agent_id="bot"), RecallScope("t", "u")
    )
    assert not policy.out_of_scope(mem("t", "u", "x", visibility=Visibility.TENANT, agent_id="spy"), scope)


@pytest.mark.parametrize(
    ("trigger", "action", "fires"),
    [
        ({"action": "recommend", "domain": "restaurant"}, ("recommend", "restaurant"), True),
        ({"action": "recommend", "domain": "restaurant"}, ("Recommend", "Restaurant "), True),
        ({"action": "recommend"}, ("recommend", "restaurant"), True),
        ({"action": "recommend"}, ("recommend", None), True),
        ({"action": "recommend", "domain": "restaurant"}, ("recommend", None), False),
        ({"action": "recommend", "domain": "restaurant"}, ("recommend", "hotel"), False),
        ({"action": "book", "domain": "restaurant"}, ("recommend", "restaurant"), False),
        (None, ("recommend", "restaurant"), False),
    ],
)
def test_constraint_trigger_matching(trigger, action, fires) -> None:
    constraint = mem("t", "u", "x", recall_semantics=RecallSemantics.CONSTRAINT, trigger=trigger)
    assert policy.fires(constraint, policy.RequestedAction(*action)) is fires
    assert policy.fires(constraint, None) is False
    assert policy.fires(mem("t", "u", "x", trigger=trigger), policy.RequestedAction(*action)) is False


def test_live_intent_suppresses_defaults_never_constraints() -> None:
    live = live_intent.live_intent_attributes({"Preferred_Meeting_Time ": "15:00"})
    default = mem("t", "u", "x", attribute="preferred_meeting_time")
    constraint = default.model_copy(update={"recall_semantics": RecallSemantics.CONSTRAINT})
    assert live_intent.yields_to_live_intent(default, live)
    assert not live_intent.yields_to_live_intent(constraint, live)
    assert not live_intent.yields_to_live_intent(mem("t", "u", "x", attribute="timezone"), live)


def test_conflicts_keep_the_stronger_by_confidence_then_recency() -> None:
    slot = {"entity": "user", "attribute": "preferred_editor"}
    vim = mem("t", "u", "vim", value="vim", confidence=0.9, **slot)
    emacs = mem("t", "u", "emacs", value="Emacs", confidence=0.7, **slot)
    same = mem("t", "u", "vim again", value="Vim.", confidence=0.5, **slot)
    dropped = policy.resolve_conflicts([vim, emacs, same])
    assert set(dropped) == {emacs.id} and dropped[emacs.id].kept_id == vim.id
    newer = mem("t", "u", "emacs", value="emacs", confidence=0.9, days_ago=0, **slot)
    assert set(policy.resolve_conflicts([vim, newer])) == {vim.id}


def test_no_conflict_across_contexts_or_for_multi_valued_attributes() -> None:
    work = mem("t", "u", "a", entity="user", attribute="role", value="CTO", context="main job")
    side = mem("t", "u", "b", entity="user", attribute="role", value="advisor", context="consulting")
    likes = [mem("t", "u", v, entity="user", attribute="likes", value=v) for v in ("jazz", "rock")]
    assert policy.resolve_conflicts([work, side, *likes]) == {}
