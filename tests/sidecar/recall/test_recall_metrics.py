"""Recall's metrics: each recall is timed and its result size counted; suppressions are counted by a
bounded reason, whatever ids or attributes their free-text `why` names."""

from __future__ import annotations

import pytest
from prometheus_client import REGISTRY, CollectorRegistry

from sidecar.auth import Principal
from sidecar.recall.metrics import RecallMetrics, suppression_reason
from sidecar.recall.models import RecallRequest
from tests.sidecar.recall.seeding import mem


@pytest.mark.parametrize(
    ("why", "reason"),
    [
        ("sensitive (health) outside its domain", "sensitive"),
        ("its belief is sensitive outside this request's domain", "sensitive"),
        ("over the token budget", "token_budget"),
        ("over the limit", "limit"),
        ("profile block full", "profile_full"),
        ("conflicts with the stronger 9f2c4e1a", "conflict"),
        ("quoted as context of 4c1d9e", "shown_as_context"),
        ("live intent sets preferred_editor", "live_intent"),
        ("context mismatch: context 'work'", "context"),
        ("outside topic 'tech'", "topic"),
        ("below the similarity floor (cosine 0.12 < 0.2; importance 0.30 < 0.8 to bypass it)", "similarity_floor"),
        ("confidence below the floor", "confidence_floor"),
        ("suppressed: its belief was superseded", "superseded"),
        ("suppressed: a later statement of the user replaced this one on 2026-05-29", "superseded"),
        ("framing: sarcastic: 'Sure, I'm a famous chef.'", "framing"),
        ("domain: a constraint on food, this request is about no domain we can read", "domain"),
        ("live intent sets units: units='miles'", "live_intent"),
        ("not selected: a profile fact", "not_selected"),
        ("tool turn (caution): shown only with include_untrusted_evidence", "untrusted"),
        ("untrusted source", "untrusted"),
        ("revoked", "not_current"),
        ("state consolidated", "not_current"),
        ("something new", "other"),
    ],
)
def test_a_why_maps_to_a_bounded_reason(why: str, reason: str) -> None:
    assert suppression_reason(why) == reason


def sample(name: str, labels: dict[str, str] | None = None) -> float:
    return REGISTRY.get_sample_value(name, labels or {}) or 0.0


async def test_a_recall_is_timed_and_its_size_and_suppressions_counted(world, tenant) -> None:
    await world.seed(
        mem(tenant, "u1", "The user loves sushi restaurants."),
        mem(tenant, "u1", "The user loves sushi with friends on Fridays."),
        mem(tenant, "u1", "The user orders sushi for lunch."),
    )
    before = {
        "recalls": sample("beliefstream_recall_duration_seconds_count"),
        "items": sample("beliefstream_recall_result_items_sum"),
        "tokens": sample("beliefstream_recall_result_tokens_sum"),
        "limit": sample("beliefstream_recall_suppressed_total", {"reason": "limit"}),
    }
    request = RecallRequest(user_id="u1", query="sushi", limit=1, episodes=False)
    result = await world.service.recall(Principal(tenant, None, key_id="k"), request)

    assert len(result.memories) == 1
    assert sample("beliefstream_recall_duration_seconds_count") == before["recalls"] + 1
    assert sample("beliefstream_recall_result_items_sum") == before["items"] + 1
    assert sample("beliefstream_recall_result_tokens_sum") == before["tokens"] + result.tokens_used
    assert sample("beliefstream_recall_suppressed_total", {"reason": "limit"}) == before["limit"] + 2


def test_suppressions_are_counted_by_reason_on_every_observation() -> None:
    registry = CollectorRegistry()
    metrics = RecallMetrics(registry)
    for _ in range(2):  # the second observation goes through the remembered children
        metrics.observe_result(1, 10, [("a", "over the limit"), ("b", "over the limit"), ("c", "revoked")])
    counted = {
        reason: registry.get_sample_value("beliefstream_recall_suppressed_total", {"reason": reason})
        for reason in ("limit", "not_current")
    }
    assert counted == {"limit": 4.0, "not_current": 2.0}
