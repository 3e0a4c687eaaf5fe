"""Updates in many phrasings of our own (employer changes, corrections, retractions, plan changes) and
sentences that must not read as updates: the shape reader generalises by form, not by a word list of
any evaluation set."""

from __future__ import annotations

import pytest

from beliefs.statements import UpdateKind
from reading.statement_shape import read_shape

UPDATES = [
    ("Got poached by Northgrid Energy last week!", UpdateKind.CHANGE),
    ("I've just joined Acme as a designer.", UpdateKind.CHANGE),
    ("Onboarding at Quillon Games all week.", UpdateKind.CHANGE),
    ("First week at Pinecrest Veterinary done!", UpdateKind.CHANGE),
    ("I'm with Hartwell Legal now, as a junior associate.", UpdateKind.CHANGE),
    ("I handed in my notice at Brackenridge, starting at Lumen Biotech in May.", UpdateKind.CESSATION),
    ("Ignore what I said about the 3rd, the party is on the 5th.", UpdateKind.CORRECTION),
    ("Actually the deposit was 350, I had it as 300.", UpdateKind.CORRECTION),
    ("Correct figure for the rent is 1,150 a month.", UpdateKind.CORRECTION),
    ("Our trip is off, the airline cancelled everything.", UpdateKind.CESSATION),
    ("We are not doing the Lisbon retreat any more, it will be in Valencia.", UpdateKind.CESSATION),
    ("The recital got pushed to next Thursday.", UpdateKind.CHANGE),
    ("Plans changed: dinner is at Rosa's, not the Italian place.", UpdateKind.CHANGE),
    ("I ditched the gym membership.", UpdateKind.CESSATION),
    ("We scrapped the loft conversion.", UpdateKind.CESSATION),
    ("My band broke up in the spring.", UpdateKind.CESSATION),
    ("We postponed the wedding to October.", UpdateKind.CHANGE),
    ("The allergist says I'm not actually allergic to penicillin.", UpdateKind.CORRECTION),
    ("I'm vegetarian now, since January.", UpdateKind.CHANGE),
    ("Correction to earlier: my flight is BA 117.", UpdateKind.CORRECTION),
    ("I misremembered, the kids' school starts at 8:40.", UpdateKind.CORRECTION),
    ("Swapped my Monday yoga for Pilates.", UpdateKind.CHANGE),
    ("We sold the Corolla and bought a bike.", UpdateKind.CHANGE),
    ("I resigned from the board last month.", UpdateKind.CESSATION),
    ("The landlord put the rent up to 1,300.", UpdateKind.CHANGE),
    ("Not Friday, Saturday: that's when the movers come.", UpdateKind.CORRECTION),
    ("I no longer take the 7:15 train, I drive now.", UpdateKind.CESSATION),
    ("Tuesday book club is cancelled for good.", UpdateKind.CESSATION),
    ("Decided to go with the Dell instead of the MacBook.", UpdateKind.CHANGE),
    ("The right date for the audit is 14 May.", UpdateKind.CORRECTION),
    ("Disregard my last message, the budget stays at 2,000.", UpdateKind.CORRECTION),
    ("The dentist bumped me to the 12th.", UpdateKind.CHANGE),
]

NOT_UPDATES = [
    "I love my job at Acme.",
    "Should I switch to the annual plan?",
    "If I moved to Berlin I would need a visa.",
    "My friend said she quit her job.",
    "They moved to Leeds last year.",
    "He cancelled on me again, typical.",
    "I still work at Brackenridge Foods.",
    "Do you think I should cancel the gym?",
    "The weather in Lisbon is lovely.",
    "I might change jobs next year.",
    "I went for a run this morning.",
    "In the end it was a lovely day.",
    "The real question is what to cook.",
    "The right answer is to wait and see.",
]


@pytest.mark.parametrize(("text", "kind"), UPDATES)
def test_an_update_is_read_in_many_phrasings(text: str, kind: UpdateKind) -> None:
    shape = read_shape(text)
    assert shape is not None and shape.kind is kind


@pytest.mark.parametrize("text", NOT_UPDATES)
def test_an_asked_hypothetical_continued_or_someone_else_s_change_is_no_update(text: str) -> None:
    assert read_shape(text) is None
