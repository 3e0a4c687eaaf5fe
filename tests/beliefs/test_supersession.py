"""Subject matching and the update decision (`beliefs.supersession.judge`), pure: statements built by
`reading.subject` from many phrasings, with vectors chosen to place them near or far in meaning."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from math import cos, sin

import pytest

from beliefs.statements import Shape, UpdateKind
from beliefs.supersession import FIRM_CLOSENESS, POSSIBLE_CLOSENESS, cosine, judge
from reading.statement_shape import read_shape
from reading.subject import statement_of, terms_of

T0 = datetime(2026, 3, 1, tzinfo=UTC)


def at_cosine(value: float) -> list[float]:
    """A unit vector whose cosine with (1, 0) is `value`."""
    angle = __import__("math").acos(value)
    return [cos(angle), sin(angle)]


def older(text: str, similarity: float = 1.0, speaker: str | None = None, days: int = 0):
    return statement_of(
        f"old-{days}-{text[:8]}", "episode", text, T0 + timedelta(days=days), speaker, [1.0, 0.0]
    )


def newer(text: str, similarity: float, speaker: str | None = None, shape: Shape | None = None):
    return statement_of(
        "new",
        "episode",
        text,
        T0 + timedelta(days=30),
        speaker,
        at_cosine(similarity),
        shape or read_shape(text),
    )


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("My rail pass is 90 a month.", "Sorry, it's 120, not 90."),
        ("My bike commute is 14 km each way.", "I meant 9 km, not 14."),
        ("We're booked into the Hotel Miramar.", "We cancelled the Miramar, it was too loud."),
        ("I'm the treasurer of the tenants' association.", "I'm no longer treasurer, I took over as chair."),
        ("I play squash on Mondays.", "I quit squash after the injury."),
        ("Our channel is Apollo Dev.", "We went with Atlas instead of Apollo Dev."),
    ],
)
def test_naming_the_replaced_value_is_a_firm_link_even_at_modest_similarity(before: str, after: str) -> None:
    [link] = judge(newer(after, 0.35), [older(before)])
    assert link.firm and link.older_id.startswith("old-") and link.at == T0 + timedelta(days=30)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("We booked the Lisbon venue for the retreat.", "Scratch that, the retreat is in Valencia now."),
        ("Our office is in the Westgate building.", "The company relocated our office to Canal Street."),
        ("My landlord is Trevor Hale.", "The building was sold, so the landlord changed to Mrs. Adeyemi."),
        ("The wedding is on the 14th of August.", "The wedding got moved to the 21st of August."),
    ],
)
def test_an_explicit_update_close_in_meaning_is_firm(before: str, after: str) -> None:
    [link] = judge(newer(after, FIRM_CLOSENESS), [older(before)])
    assert link.firm


def test_an_explicit_update_a_little_further_off_is_only_possible() -> None:
    [link] = judge(
        newer("We switched the book club to the library.", POSSIBLE_CLOSENESS),
        [older("The book club meets at the café.")],
    )
    assert not link.firm and "close subject" in link.reason


def test_an_explicit_update_giving_another_value_of_the_same_kind_a_little_further_off_is_possible() -> None:
    """Another weekday for the same book club, with a cue: linked by the typed value (the closeness
    alone would not link it firmly), and only possibly: a typed value is weaker evidence than a value
    named as over."""
    [link] = judge(
        newer("We switched the book club to Thursdays.", POSSIBLE_CLOSENESS),
        [older("The book club meets on Mondays.")],
    )
    assert not link.firm


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("I live in Lisbon.", "We switched the book club to Thursdays."),
        ("My sister is a nurse.", "Sorry, it's 120, not 90."),
        ("I love hiking in the Alps.", "I quit the choir in March."),
    ],
)
def test_another_subject_is_never_linked(before: str, after: str) -> None:
    assert judge(newer(after, 0.2), [older(before)]) == []


def test_a_value_named_in_a_statement_of_several_things_is_only_possibly_all_of_it() -> None:
    before = older("I read the Guardian every morning, and I'm subscribed to the Economist too.")
    [link] = judge(newer("Cancelled my Economist subscription yesterday.", 0.4), [before])
    assert not link.firm and "economist" in link.reason


def test_meaning_alone_is_no_subject() -> None:
    """Turns of one conversation all sound alike: without a specific term in common nothing is linked."""
    assert (
        judge(
            newer("Scratch that, we're going with the blue one.", 0.9), [older("Thanks, that sounds lovely!")]
        )
        == []
    )


def test_terms_said_in_many_statements_tie_no_subject() -> None:
    chatter = [older(f"Thanks Mel, the support group was great, {day}.", days=i) for i, day in enumerate("ABCDEF")]
    target = older("The support group meets in Hall 3.", days=7)
    links = judge(newer("Scratch that, the support group meets in Hall 5 now.", 0.7), [*chatter, target])
    assert [link.older_id for link in links] == [target.id]


def test_a_new_start_is_at_most_a_possible_link() -> None:
    [link] = judge(
        newer("Just started as a product analyst at Lumen Health!", 0.9),
        [older("I'm a data analyst at Brightwave.")],
    )
    assert not link.firm


def test_a_new_value_of_the_same_noun_is_an_explicit_change() -> None:
    shape = read_shape("The building was sold. My new landlord is Mrs. Adeyemi.")
    assert shape is not None and "landlord" in shape.renewed
    [link] = judge(
        newer("The building was sold. My new landlord is Mrs. Adeyemi.", 0.55),
        [older("My landlord is Trevor Hale.")],
    )
    assert not link.firm and "explicit" in link.reason


def test_a_number_named_in_passing_is_a_coincidence_below_the_floor() -> None:
    assert judge(newer("Sorry, it's 120, not 90.", 0.1), [older("I ran 90 km last month.")]) == []


def test_an_implied_update_needs_a_closer_subject_and_is_never_firm() -> None:
    before = older("My dentist is Dr. Ahmed.")
    assert judge(newer("These days my dentist is Dr. Patel.", POSSIBLE_CLOSENESS), [before]) == []
    [link] = judge(newer("These days my dentist is Dr. Patel.", 0.9), [before])
    assert not link.firm


def test_the_same_values_said_again_are_no_update() -> None:
    assert judge(newer("I live in Porto now.", 0.9), [older("I live in Porto.")]) == []


def test_only_the_same_speakers_earlier_statements_are_judged() -> None:
    before = older("My rail pass is 90 a month.", speaker="Caroline")
    assert judge(newer("Sorry, it's 120, not 90.", 0.9, speaker="Melanie"), [before]) == []
    assert judge(newer("Sorry, it's 120, not 90.", 0.9, speaker="Caroline"), [before])


def test_a_plain_new_value_of_the_same_subject_is_only_a_possible_link() -> None:
    """No cue: another number of the same thing (a month's price), said of the same subject, may have
    replaced the old one; the rules cannot decide, so the two are linked possibly, never firmly."""
    assert read_shape("My rail pass is 120 a month.") is None
    [link] = judge(newer("My rail pass is 120 a month.", 0.95), [older("My rail pass is 90 a month.")])
    assert not link.firm and "a new number" in link.reason


@pytest.mark.parametrize(
    ("before", "after", "similarity"),
    [
        ("I ran with Tom this morning.", "Tom and I had lunch by the river.", 0.9),  # no typed value, no slot
        ("My rail pass is 90 a month.", "My gym is 45 a month.", 0.4),  # far in meaning, nothing shared
        ("I have 2 cats.", "I drank 3 coffees today.", 0.9),  # numbers of different things
        ("Our flat has 3 bedrooms.", "The flat has 3 bedrooms and a garden.", 0.95),  # the same value again
    ],
)
def test_a_plain_statement_without_a_new_value_of_the_same_subject_links_nothing(
    before: str, after: str, similarity: float
) -> None:
    assert judge(newer(after, similarity), [older(before)]) == []


def test_a_plain_new_value_right_after_the_previous_statement_needs_no_shared_word() -> None:
    """Said minutes after, with nothing between, "It's at 3pm" continues the party's time; a week later,
    or with another statement between, it shares no word with it and is left alone."""
    party = statement_of("old", "episode", "The birthday party is at 2pm on the 9th.", T0, None, [1.0, 0.0])
    text = "It's at 3pm, I read the invite wrong."

    def said_after(delay: timedelta):
        return statement_of("new", "episode", text, T0 + delay, None, at_cosine(0.4), read_shape(text))

    [link] = judge(said_after(timedelta(minutes=20)), [party])
    assert "a new time" in link.reason and not link.firm
    assert judge(said_after(timedelta(days=7)), [party]) == []
    between = statement_of("mid", "episode", "I love trampolines.", T0 + timedelta(minutes=5), None, [0.0, 1.0])
    assert judge(said_after(timedelta(minutes=20)), [party, between]) == []


def test_a_later_statement_is_never_made_stale_by_an_earlier_one() -> None:
    later = statement_of(
        "later", "episode", "My rail pass is 90 a month.", T0 + timedelta(days=60), None, [1.0, 0.0]
    )
    assert judge(newer("Sorry, it's 120, not 90.", 0.9), [later]) == []


def test_links_come_oldest_first() -> None:
    first, second = older("My rail pass is 90 a month.", days=1), older("The rail pass is 90, ugh.", days=2)
    assert [link.older_id for link in judge(newer("Sorry, it's 120, not 90.", 0.5), [second, first])] == [
        first.id,
        second.id,
    ]


def test_cosine_and_terms() -> None:
    assert cosine([1.0, 0.0], [0.0, 1.0]) == 0.0 and cosine(None, [1.0]) == 0.0
    assert round(cosine([1.0, 0.0], at_cosine(0.5)), 6) == 0.5
    terms, values = terms_of("I met Dara's weddings planner on the 21st; I pay 1,450.")
    assert {"dara", "wedding", "21", "1450"} <= terms and values == {"dara", "21", "1450"}
    assert UpdateKind.CESSATION.value == "cessation"


@pytest.mark.parametrize(
    ("before", "after", "firm"),
    [
        ("I'm a vet nurse at Greenpaw Clinic, mostly cats.", "First week at Pinecrest Veterinary done!", False),
        ("I work in QA at Stackline Software.", "Onboarding at Quillon Games all week.", False),
        ("I'm a project manager at Vireo Construction.", "Got poached by Northgrid Energy last week!", True),
        ("I'm a paralegal at Moss & Whitley.", "I'm with Hartwell Legal now, as a junior associate.", False),
        ("User works at Vandelay Industries.", "I've just joined Acme as a designer.", False),
        ("I'm employed by Pelham Insurance.", "I switched jobs, I'm working for Corbel Retail.", True),
        ("I'm the head chef at Olive Branch Bistro.", "I moved on and I'm now the head chef at Saffron House.", True),
    ],
)
def test_another_employer_replaces_the_old_one_whatever_the_words(before: str, after: str, firm: bool) -> None:
    """No shared word, little shared meaning: the slot (an employer) and another value of it are the subject."""
    [link] = judge(newer(after, 0.1), [older(before)])
    assert link.firm is firm and "employer" in link.reason


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("I'm a paralegal at Moss & Whitley.", "Still at Moss & Whitley, I'm now a senior paralegal."),
        ("I work at Brackenridge Foods.", "My sister just joined Lumen Biotech."),
        ("I work at Brackenridge Foods.", "Would I ever join Lumen Biotech? Maybe."),
        ("I work at Brackenridge Foods.", "I joined a climbing gym now, three times a week."),
        ("I work at Brackenridge Foods and freelance for Tallis Robotics.", "I just started at Tallis Robotics full-time."),
    ],
)
def test_the_same_employer_someone_else_s_or_a_question_replaces_nothing(before: str, after: str) -> None:
    assert [link for link in judge(newer(after, 0.1), [older(before)]) if "employer" in link.reason] == []


def test_another_place_is_only_a_possible_link_and_only_where_the_two_speak_alike() -> None:
    before = "Our office is in the Westgate building, fourth floor."
    after = "The company relocated us to the Canal Street campus this month."
    [link] = judge(newer(after, 0.35), [older(before)])
    assert not link.firm and "place" in link.reason
    assert judge(newer(after, 0.1), [older(before)]) == []  # unrelated in meaning: a place of something else


def test_a_plain_denial_of_the_same_subject_is_a_possible_link() -> None:
    """No cue word: "isn't happening" denies what the plan affirmed; a denial of another subject, or
    an affirmation, links nothing."""
    plan = older("We're planning a loft conversion this summer.")
    denial = "The loft conversion isn't happening, the quote was double our budget."
    denied = statement_of("new", "episode", denial, T0 + timedelta(days=30), None, at_cosine(0.6), None, denies=True)
    [link] = judge(denied, [plan])
    assert not link.firm and link.reason.startswith("denial")
    other = statement_of(
        "new", "episode", "The garden shed isn't finished.", T0 + timedelta(days=30), None, at_cosine(0.6), None, denies=True
    )
    assert judge(other, [plan]) == []
    affirmed = statement_of("new", "episode", "The loft conversion is on track.", T0 + timedelta(days=30), None, at_cosine(0.6))
    assert judge(affirmed, [plan]) == []


def test_an_update_cue_with_another_value_of_the_same_type_needs_no_shared_word() -> None:
    """"These days I swim at 7am" after "I go to the pool at 18:00": no shared word, but a cue that says
    it is a change and another time, close in meaning: possibly superseded. Without the cue, or far in
    meaning, or with bare numbers of nothing named, nothing is linked."""
    before = older("I go to the pool at 18:00 on weekdays.")
    [link] = judge(newer("These days I swim at 7am before breakfast.", 0.5), [before])
    assert not link.firm and "a new time" in link.reason
    assert judge(newer("I swim at 7am before breakfast.", 0.5), [before]) == []
    assert judge(newer("These days I swim at 7am before breakfast.", 0.3), [before]) == []
    assert judge(newer("These days I sleep 6 hours.", 0.6), [older("My flat is on floor 3.")]) == []
