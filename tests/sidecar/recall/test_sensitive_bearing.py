"""Where a sensitive fact bears (issue 24, build item 5): by what the request is about, not by raw cosine.

A condition or an observance comes back where it changes the answer (a revision plan, a party, the
week's timetable, a clinic) and stays out where it does not (a film, a laptop, a spreadsheet).
"""

from __future__ import annotations

import pytest

from reading.domains import domains_of
from reading.sensitivity import is_safety_fact
from sidecar.recall.sensitivity_gate import request_domains, safety_fires, sensitive_outside
from tests.sidecar.recall.seeding import mem


def _outside(text: str, category: str, query: str, domain: str | None = None) -> bool:
    fact = mem("t", "u", text, sensitivity=category)
    return sensitive_outside(fact, request_domains(query, domain)) is not None


@pytest.mark.parametrize(
    ("text", "query", "domain"),
    [
        ("The user has dyslexia and OCD.", "Make me a revision timetable for my finals.", None),
        ("The user was diagnosed with autism as a teenager.", "Draft a plan for my dissertation.", "study"),
        ("The user gets panic attacks in packed rooms.", "Any tips for my cousin's wedding reception?", None),
        ("The user has had burnout since spring.", "I'm tired all the time lately, any ideas?", None),
    ],
)
def test_a_mental_health_condition_bears_on_study_social_occasions_and_how_the_user_feels(text, query, domain) -> None:
    assert not _outside(text, "health", query, domain)


@pytest.mark.parametrize(
    "query",
    ["Recommend a thriller novel.", "Which phone has the best camera?", "Suggest a quick pasta dinner."],
)
def test_a_mental_health_condition_stays_out_where_it_does_not_bear(query) -> None:
    assert _outside("The user was diagnosed with autism as a teenager.", "health", query)


def test_a_physical_condition_does_not_follow_a_mental_one_to_study_or_parties() -> None:
    assert _outside("The user has type 2 diabetes, diagnosed in 2019.", "health", "Make me a revision timetable.")


def test_an_observance_bears_on_planning_the_user_s_time_not_on_anything_else() -> None:
    text = "The user is an observant Jew and keeps the Sabbath."
    assert not _outside(text, "religion", "Put together my training timetable for May.")
    assert not _outside(text, "religion", "Lay out my Saturday.", "calendar")
    assert _outside(text, "religion", "How do I centre a div in CSS?")
    assert _outside(text, "religion", "Recommend a podcast about whales.")


def test_gender_identity_bears_on_health_care_orientation_does_not() -> None:
    assert not _outside("The user is non-binary and started testosterone last year.", "sexuality", "Find me a new GP clinic.")
    assert not _outside("The user is a transgender man.", "sexuality", "Which doctor should I see about hormones?")
    assert _outside("The user is a lesbian.", "sexuality", "Find me a new GP clinic.")
    assert _outside("The user is a transgender man.", "sexuality", "Recommend a tent for two.")


def test_a_pay_question_is_about_money_without_the_word_salary() -> None:
    for query in ("How do I ask for a pay rise?", "Is my bonus taxed differently?", "Check my payslip maths."):
        assert "finances" in domains_of(query)
    assert not _outside("The user earns 38k a year.", "finances", "Help me get ready for my pay review.")


def test_how_the_user_feels_places_a_request_in_health() -> None:
    for query in ("I'm exhausted every afternoon, why?", "I have no energy lately.", "I suffer from insomnia."):
        assert "health" in domains_of(query)
    assert "health" not in domains_of("Compare solar energy tariffs.")


def test_a_party_is_a_social_occasion_and_fitness_is_an_activity() -> None:
    assert "social" in domains_of("What should I wear to the leaving party?")
    assert "activities" in request_domains("Plan my week.", "fitness")


@pytest.mark.parametrize(
    "text",
    ["I'm on crutches for six weeks.", "I walk with a walking stick.", "I wear hearing aids.", "I need step-free access."],
)
def test_mobility_and_hearing_aids_are_safety_facts_for_travel(text) -> None:
    assert is_safety_fact(None, text)
    fact = mem("t", "u", text)
    assert safety_fires(fact, request_domains("Book a hotel in Porto.", "hotel"))
    assert not safety_fires(fact, request_domains("How do I write a SQL join?"))


def test_a_party_to_go_to_is_no_political_party() -> None:
    member = "The user is a Green Party member and leafleting most Saturdays."
    assert _outside(member, "politics", "Help me survive my sister's engagement party.")
    assert not _outside(member, "politics", "Plan my canvassing before the referendum.")
    assert not _outside(member, "politics", "What's on at the party conference this year?")
