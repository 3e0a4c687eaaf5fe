"""Phrasings for the statement-shape reader: (text, kind or None, explicit). The held-out third lives in
`shape_cases_heldout.py`, written with these and never tuned on."""

from __future__ import annotations

CORRECTIONS = [
    "Sorry, it's 120, not 90.",
    "I meant Tuesday, not Thursday.",
    "Oops, typo: the budget is 4,500.",
    "My mistake, the flight lands at 7pm.",
    "I misspoke earlier, her name is Joanna.",
    "Let me correct that: the meeting room is B12.",
    "Scratch that, we're going with the blue sofa.",
    "Wait, no, the appointment is on the 9th.",
    "I got the date wrong, the recital is on May 4.",
    "I mixed them up: Sam is the older one.",
    "Correction: the invoice total was 860 euros.",
    "I said Leeds before but I meant Luton.",
]
CHANGES = [
    "We switched to the annual plan last week.",
    "Change of plans, the reunion moved to Bristol.",
    "The dentist rescheduled me to Friday.",
    "I upgraded to the premium membership.",
    "We ended up picking the green tiles instead.",
    "As of this week my commute is by train.",
    "From now on the standup is at 9:30.",
    "The team got renamed to Platform Core.",
    "I transferred to the night shift.",
    "Turns out the venue holds 200 people.",
    "We decided against the suburbs and took a flat downtown.",
    "I swapped my road bike for a gravel bike.",
    "As of Friday the clinic opens at eight.",
    "We took the cheaper quote from the roofer in the end.",
]
CESSATIONS = [
    "I don't play the cello anymore.",
    "I'm no longer on the board of the food bank.",
    "We cancelled the gym membership.",
    "I quit the choir in March.",
    "The trip to Oslo fell through.",
    "I gave up coffee for good.",
    "I pulled out of the half marathon.",
    "Forget what I said about the garden shed.",
    "I'm done with the evening pottery course.",
    "I stepped down from the residents' committee in May.",
    "Our budgie Kiwi died on Sunday.",
    "My grandad passed away in the spring.",
    "We've gone meat-free at home since the summer.",
]
IMPLIED = [
    "My new dentist is Dr. Patel.",
    "These days I cycle to work.",
    "I'm in Lyon now.",
]
NOT_UPDATES = [
    "I live in Lisbon.",
    "My sister is a nurse in Leeds.",
    "We booked the venue for the retreat.",
    "Should I switch to the annual plan?",
    "What if I moved to Berlin instead?",
    "Maybe I'll cancel the gym membership, not sure yet.",
    "I still work at the bakery.",
    'My friend wrote: "I quit my job and moved to Rome."',
    "You said I switched teams, right?",
    "I love hiking in the Alps.",
    "I nearly died laughing at the wedding speech.",
]
