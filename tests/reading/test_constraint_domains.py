"""Rules-made constraints take their domain from the sentence, so they fire only where they belong."""

from __future__ import annotations

import pytest

from reading.domains import domains_of
from reading.extract.constraints import constraint_findings
from reading.extract.finding import Subject
from sidecar.recall import policy
from sidecar.recall.sensitivity_gate import request_domains
from tests.sidecar.recall.seeding import mem

USER = Subject("user", "User")


@pytest.mark.parametrize(
    ("sentence", "domain"),
    [
        ("Never recommend sushi again.", "restaurant"),
        ("Never suggest a hike with steep climbs.", "activities"),
        ("Never recommend ibuprofen to me.", "medication"),
        ("Don't suggest expensive hotels.", "hotel"),
    ],
)
def test_a_constraint_takes_its_domain_from_the_sentence(sentence: str, domain: str) -> None:
    [finding] = constraint_findings(sentence, USER)
    assert finding.trigger == {"action": "recommend", "domain": domain}


def test_never_recommend_sushi_fires_for_food_requests_not_every_recommendation() -> None:
    [finding] = constraint_findings("Please never recommend sushi again.", USER)
    rule = mem(
        "t", "u", finding.text, recall_semantics=finding.recall_semantics, trigger=finding.trigger, value=finding.value
    )
    suggest = policy.RequestedAction("suggest")
    assert policy.fires(rule, suggest, request_domains("ideas for dinner tonight"))
    assert policy.fires(rule, suggest, request_domains("what should I cook?"))
    assert not policy.fires(rule, suggest, request_domains("a book for my holiday"))
    assert not policy.fires(rule, suggest, request_domains(""))


@pytest.mark.parametrize(
    ("request_text", "domain"),
    [("what foods should I avoid?", "food"), ("any good hikes this weekend?", "activities"), ("cheap flights?", "travel")],
)
def test_a_plural_places_the_request_in_its_domain(request_text: str, domain: str) -> None:
    """An allergy must surface for "what foods should I avoid?" as for "what food ...": plurals count."""
    assert domain in domains_of(request_text)


def test_a_figure_of_speech_names_no_domain() -> None:
    assert "health" not in domains_of("Stop recommending apps with subscriptions, I'm sick of monthly fees.")
    assert "health" in domains_of("I've been off sick with the flu.")
