"""Updates that generalise (issue 24.1): a value named as over right after, a correction naming a
typed value, and the additions that must not link (a second pet, a second job)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from math import acos, cos, sin

from beliefs.supersession import judge
from reading.statement_shape import read_shape
from reading.subject import statement_of

T0 = datetime(2026, 3, 1, tzinfo=UTC)


def at_cosine(value: float) -> list[float]:
    angle = acos(value)
    return [cos(angle), sin(angle)]


def said(item_id: str, text: str, after: timedelta, similarity: float):
    return statement_of(item_id, "episode", text, T0 + after, None, at_cosine(similarity), read_shape(text))


def test_a_value_named_as_over_right_after_needs_no_likeness() -> None:
    """"Ugh, Friday, not Thursday." two minutes after the plan shares little meaning with it: firm; a
    day later the weekday it names still links it, possibly."""
    plan = said("old", "Meeting Jonas at the Bluebell cafe on Thursday.", timedelta(0), 1.0)
    fix = "Ugh, Friday, not Thursday. Thursday is the dentist."
    [link] = judge(said("new", fix, timedelta(minutes=2), 0.1), [plan])
    assert link.firm and "thursday" in link.reason
    [later] = judge(said("new", fix, timedelta(days=1), 0.1), [plan])  # a day later: a typed value named, possibly
    assert not later.firm


def test_a_correction_naming_a_typed_value_links_possibly_however_unlike() -> None:
    booking = said("old", "Our anniversary dinner is booked at Osteria Nonna for 7:30 on Saturday.", timedelta(0), 1.0)
    [link] = judge(said("new", "Did I say 7:30? It's 8:15, they moved us.", timedelta(days=1), 0.13), [booking])
    assert not link.firm and "7 30" in link.reason


def test_a_bare_number_named_as_over_is_no_typed_value() -> None:
    run = said("old", "I ran 90 km last month.", timedelta(0), 1.0)
    assert judge(said("new", "Sorry, it's 120, not 90.", timedelta(days=30), 0.1), [run]) == []


def test_an_ended_thing_named_by_the_new_shapes_is_linked() -> None:
    cases = [
        ("I'm learning Italian on Duolingo, 200-day streak!", "Dropped the Italian. I've been doing Japanese since August."),
        ("This summer we're renting a cottage in Cornwall for two weeks.", "Cornwall's off, too pricey. Booked a gite in Brittany."),
        ("Our son got a place at Bramley nursery starting in April.", "We turned down Bramley, he's going to Little Acorns."),
        ("I play five-a-side football every Thursday.", "I used to play five-a-side but it's padel on Thursdays now."),
    ]
    for before, after in cases:
        [link] = judge(said("new", after, timedelta(days=40), 0.4), [said("old", before, timedelta(0), 1.0)])
        assert " names " in link.reason, (before, after)


def test_an_addition_links_nothing() -> None:
    cases = [
        ("We have a tabby cat called Miso.", "We also got a rescue greyhound, Pablo, last week."),
        ("I've been doing pottery on Monday evenings.", "Started bouldering on Wednesdays too."),
        ("My mum's birthday is 3 April.", "My dad's birthday is 19 November."),
    ]
    for before, after in cases:
        assert judge(said("new", after, timedelta(days=40), 0.5), [said("old", before, timedelta(0), 1.0)]) == [], after
