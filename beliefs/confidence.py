"""What confidence means here: the scale's named levels, and how time lowers it. Pure.

Confidence is how literally true of the speaker a claim is, set once when it is said and never
changed by time; importance is a separate judgement. From high to low:

    CORRECTION_CONFIDENCE        0.95  an explicit correction ("No, I use pytest"): outranks what it corrects
    RESOLUTION_CONFIDENCE        0.95  a value a person chose to end a contradiction loop
    STATED_CONFIDENCE            0.9   what the user states plainly about themselves
    TRUSTED_CONFIDENCE           0.6   from here up the user's own claim is trusted; below it is weak
    HEDGED_CONFIDENCE            0.5   hedged intent ("I might switch to Go")
    UNVERIFIED_CONFIDENCE        0.5   the most a direct insert keeps without the `admin` capability
    CONFIDENCE_FLOOR             0.4   below it a claim never changes a belief, and recall leaves it out
    HYPOTHETICAL_CONFIDENCE_CAP  0.3   the most anything said in a hypothetical or roleplay frame keeps
    HYPOTHETICAL_CONFIDENCE      0.25  a hypothetical as the rules read it

Recall decays confidence by the time since the belief was last confirmed, with the half-life of
its category (`beliefs.age`): `effective_confidence`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from beliefs.age import days_since_confirmed, half_life_days, halved
from beliefs.records import Memory, Trust

CORRECTION_CONFIDENCE = 0.95
RESOLUTION_CONFIDENCE = 0.95
STATED_CONFIDENCE = 0.9
TRUSTED_CONFIDENCE = 0.6
HEDGED_CONFIDENCE = 0.5
UNVERIFIED_CONFIDENCE = 0.5
CONFIDENCE_FLOOR = 0.4
HYPOTHETICAL_CONFIDENCE_CAP = 0.3
HYPOTHETICAL_CONFIDENCE = 0.25

#: Effective confidence (or stored, for a belief's certainty) under which evidence is weak and
#: said to be: the level from which a claim is trusted.
WEAK_CONFIDENCE = TRUSTED_CONFIDENCE

#: How far a quote's words may be taken as evidence, by the trust of who said them.
QUOTE_CONFIDENCE: Mapping[Trust, float] = {Trust.TRUSTED: 0.9, Trust.CAUTION: 0.5, Trust.UNTRUSTED: 0.2}


def effective_confidence(memory: Memory, now: datetime) -> float:
    """confidence · 0.5^(days since last confirmed / half_life_days)."""
    return memory.confidence * halved(days_since_confirmed(memory, now), half_life_days(memory))
