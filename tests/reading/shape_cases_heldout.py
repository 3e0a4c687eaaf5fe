"""Held-out phrasings for the statement-shape reader: written with `shape_cases.py`, never tuned on.
`tests/reading/test_statement_shape.py` runs them; their pass rate is reported, not chased."""

from __future__ import annotations

CORRECTIONS = [
    "Sorry, I meant the 15th, not the 5th.",
    "Typo on my part: the code is 4471.",
    "No wait, the party is at Jen's place.",
    "I had the time wrong, the train leaves at 8:10.",
    "My bad, the landlord's name is Ortega.",
    "To correct myself: it's 3 kids, not 2.",
]
CHANGES = [
    "We moved the wedding to October.",
    "I've switched over to the vegetarian menu.",
    "The course got postponed to spring.",
    "Our office relocated to the harbour district.",
    "I went with the cheaper quote in the end, the 1,200 one.",
    "Update: the new start date is June 2.",
]
CESSATIONS = [
    "I stopped taking the evening classes.",
    "We're not doing the book swap anymore.",
    "She and I broke up last month.",
    "I let the allotment go this year.",
]
IMPLIED = [
    "Nowadays I work from home on Fridays.",
]
NOT_UPDATES = [
    "My brother lives in Cork.",
    "Would you switch to a standing desk?",
    "I might quit the choir, I'm not sure.",
    "I'm still learning Portuguese.",
    "We had pasta for dinner.",
]
