"""The one-at-a-time slot reader (`reading.held_slots`): an employer read from the structure of the
sentence (membership preposition + a named organisation, governed by work, a held role or a start),
only of the user's own clause. Phrasings written for this test, none from an evaluation set."""

from __future__ import annotations

import pytest

from reading.held_slots import EMPLOYER, PLACE, held_slots

EMPLOYERS = [
    ("I work at Brackenridge Foods.", "Brackenridge Foods"),
    ("I'm working for Umbrella Health these days.", "Umbrella Health"),
    ("Working for Tallis Robotics now, remote mostly.", "Tallis Robotics"),
    ("I've been employed by Carver & Sons since 2019.", "Carver & Sons"),
    ("I do data entry work for Pelham Insurance.", "Pelham Insurance"),
    ("I'm a junior architect at Fenwick Studio.", "Fenwick Studio"),
    ("I am the head chef at Olive Branch Bistro.", "Olive Branch Bistro"),
    ("User is a data analyst at Corbel Retail.", "Corbel Retail"),
    ("I was hired by Wayne Enterprises in March.", "Wayne Enterprises"),
    ("Got poached by Northgrid Energy last week!", "Northgrid Energy"),
    ("Just joined Acme as a designer.", "Acme"),
    ("I joined Lumen Biotech on Monday.", "Lumen Biotech"),
    ("Onboarding at Quillon Games all week, lots of paperwork.", "Quillon Games"),
    ("First day at Harbour Logistics tomorrow, nervous!", "Harbour Logistics"),
    ("Finally accepted an offer from Brightwave Labs.", "Brightwave Labs"),
    ("Took a job with Redline Freight.", "Redline Freight"),
    ("My new job at Initech starts Monday.", "Initech"),
    ("I'm with Hartwell Legal now, as a junior associate.", "Hartwell Legal"),
    ("Started at Ostrander Bank on the trading desk.", "Ostrander Bank"),
    ("I've got an internship at Kestrel Media this summer.", "Kestrel Media"),
]

NOT_MINE_OR_NOT_AN_EMPLOYER = [
    "My sister works at Acme Corp.",
    "So my brother joined Globex.",
    "I think my husband got hired by Initech.",
    "She's a nurse at St Mary's.",
    "Tom joined Vandelay last month.",
    "Her first week at Google went well.",
    "I had dinner at Nando's with Sarah.",
    "I went to Paris with Tom.",
    "I joined a book club.",
    "I'm a regular at the gym.",
    "We work out at the park on Sundays.",
    "I'm at the beach now with the kids.",
]


@pytest.mark.parametrize(("text", "name"), EMPLOYERS)
def test_the_user_s_employer_is_read_in_many_phrasings(text: str, name: str) -> None:
    assert (EMPLOYER, name) in held_slots(text)


@pytest.mark.parametrize("text", NOT_MINE_OR_NOT_AN_EMPLOYER)
def test_someone_else_s_job_or_a_place_visited_is_no_employer_of_the_user(text: str) -> None:
    assert held_slots(text) == []


PLACES = [
    ("User's office is in the Westgate building, fourth floor.", "Westgate"),
    ("Our studio is at the Fairbairn Works these days.", "Fairbairn Works"),
    ("I live in Phoenix and I hate the summer heat.", "Phoenix and"),
    ("We're based in Tromsø for the winter.", "Tromsø"),
    ("The company relocated us to the Canal Street campus this month.", "Canal Street"),
    ("We moved to Tucson last month.", "Tucson"),
    ("The firm transferred me to the Dublin office.", "Dublin"),
    ("Our home address is 27 Linden Avenue, Leeds.", "27 Linden Avenue"),
    ("Post it to 4 Mariner Way, that's where we live now.", "4 Mariner Way"),
]


@pytest.mark.parametrize(("text", "name"), PLACES)
def test_a_place_of_the_user_s_own_is_read_from_where_it_is_or_went(text: str, name: str) -> None:
    assert (PLACE, name) in held_slots(text)


@pytest.mark.parametrize(
    "text",
    [
        "My sister lives in Leeds.", "My sister moved to Leeds.", "Sarah's flat is in Camden.", "We went to Paris.",
        "My brother's address is 12 Oak Road.", "I posted the 3 Mill Lane keys back, what a week.",
    ],
)
def test_someone_else_s_place_or_a_trip_is_no_place_of_the_user(text: str) -> None:
    assert [slot for slot in held_slots(text) if slot[0] == PLACE] == []


AFFILIATIONS_IN_OTHER_SHAPES = [
    # the employer takes the user on or pays them
    ("Corbin & Vale hired me in the end!", (EMPLOYER, "Corbin & Vale")),
    ("Westmoor Council pays my wages now.", (EMPLOYER, "Westmoor Council")),
    ("Lark Biotech gave me the senior role.", (EMPLOYER, "Lark Biotech")),
    # a contract or an offer with it, said diary style without a subject
    ("Signed a contract with Pellar Shipping today.", (EMPLOYER, "Pellar Shipping")),
    ("Got the offer letter from Nimbus Health this morning.", (EMPLOYER, "Nimbus Health")),
    # what the user does for a named organisation, habitually
    ("These days I write for the Coastal Herald.", ("activity:write", "Coastal Herald")),
    ("I deliver parcels for Swiftline now.", ("activity:deliver", "Swiftline")),
    ("User does the books for Mabry & Daughters.", ("activity:do", "Mabry & Daughters")),
    # a start there in other words
    ("Day two at Orbis Labs, already got a desk plant.", (EMPLOYER, "Orbis Labs")),
    ("I finally made the jump to Vantage Health.", (EMPLOYER, "Vantage Health")),
    ("Just signed on with Tamar Logistics.", (EMPLOYER, "Tamar Logistics")),
    ("I start at Quorn Analytics in March.", (EMPLOYER, "Quorn Analytics")),
    ("I landed a design job at Petrel Studio.", (EMPLOYER, "Petrel Studio")),
    ("My first payslip from Ferrier Labs came in today!", (EMPLOYER, "Ferrier Labs")),
    # the employer named as such
    ("My employer is Halloran Marine.", (EMPLOYER, "Halloran Marine")),
    ("Brisco Labs is where I work.", (EMPLOYER, "Brisco Labs")),
    # time spent at one
    ("Been at Quayle Print eleven years now, if you can believe it.", ("activity:be", "Quayle Print")),
    ("Two months at Ferrous Labs now and I love it.", ("activity:be", "Ferrous Labs")),
    ("I've been at Ostlund Print since the spring.", ("activity:be", "Ostlund Print")),
]


@pytest.mark.parametrize(("text", "slot"), AFFILIATIONS_IN_OTHER_SHAPES)
def test_an_affiliation_is_read_in_other_shapes(text: str, slot: tuple[str, str]) -> None:
    assert slot in held_slots(text)


@pytest.mark.parametrize(
    "text",
    [
        "I'm saving for Japan.",  # a purpose
        "I voted for Greens last time.",
        "I'm writing a card for Sarah.",  # not habitual: a one-off for a person
        "I trained for Boston for months.",
        "I applied for a job at Tesco.",  # applying is not working there
        "Visited my sister who works at Halden.",
        "My husband drives for Uber.",
        "Tom's firm hired me a van.",
        "Lark Biotech offered me the senior role but I said no.",
    ],
)
def test_a_purpose_an_application_or_someone_else_s_job_is_no_affiliation(text: str) -> None:
    assert [s for s in held_slots(text) if s[0] == EMPLOYER or s[0].startswith("activity:")] == []


def test_being_done_at_a_place_is_no_role_held_there() -> None:
    """ "I'm done at X" ends the job: it must not read as a role at X ("I'm head of sales at X")."""
    assert held_slots("I'm done at Tollbridge, Friday was my last shift.") == []
    assert (EMPLOYER, "Tollbridge") in held_slots("I'm head of sales at Tollbridge, Friday is payday.")


@pytest.mark.parametrize(
    "text",
    ["I'm a member at Riverside Golf Club.", "I'm a patient at the Elm Street Surgery.", "I'm a regular at the Fox & Hound."],
)
def test_a_member_patient_or_regular_holds_no_job_there(text: str) -> None:
    assert [s for s in held_slots(text) if s[0] == EMPLOYER] == []


def test_the_title_held_at_an_organisation_is_a_slot_of_that_organisation() -> None:
    """A promotion replaces the title, not the employer: the title is a slot keyed by the organisation."""
    assert ("role:marsh lane", "senior buyer") in held_slots("Since June I'm the senior buyer at Marsh Lane Foods.")
    assert (EMPLOYER, "Marsh Lane Foods") in held_slots("Since June I'm the senior buyer at Marsh Lane Foods.")
    assert ("role:marsh lane", "junior buyer in the fresh produce team") in held_slots(
        "I'm a junior buyer in the fresh produce team at Marsh Lane Foods."
    )
    assert [s for s in held_slots("I'm a member at Marsh Lane Golf Club.") if s[0].startswith("role:")] == []
