"""How sure and how fresh a recalled belief is (pure).

Effective confidence decays with time since the belief was last confirmed; that alone cannot tell
an old, well-supported fact from a weak one. `certainty` does: a memory is `weak` when it was weak
when said (low stored confidence, a caution source) or is contradicted; `old` when only time has
lowered it (trusted, confident, uncontradicted, just not confirmed lately); `firm` otherwise.
`needs_confirmation` flags an important belief that has gone unconfirmed for half its half-life.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from beliefs.age import days_since_confirmed, half_life_days
from beliefs.confidence import WEAK_CONFIDENCE, effective_confidence
from beliefs.records import Memory, Trust

Certainty = Literal["firm", "old", "weak"]

#: A belief at least this important is worth re-confirming when it goes stale.
CONFIRM_IMPORTANCE = 0.7
#: Stale for re-confirmation after this fraction of its half-life without confirmation.
CONFIRM_AFTER_HALF_LIFE = 0.5


def certainty(memory: Memory, now: datetime, contradicted: bool = False) -> Certainty:
    """`weak`, `old` or `firm` (see the module docstring)."""
    if contradicted or memory.trust is not Trust.TRUSTED or memory.confidence < WEAK_CONFIDENCE:
        return "weak"
    if effective_confidence(memory, now) < WEAK_CONFIDENCE:
        return "old"
    return "firm"


def needs_confirmation(memory: Memory, now: datetime) -> bool:
    """An important belief, unconfirmed for at least `CONFIRM_AFTER_HALF_LIFE` of its half-life."""
    if memory.importance < CONFIRM_IMPORTANCE:
        return False
    return days_since_confirmed(memory, now) >= CONFIRM_AFTER_HALF_LIFE * half_life_days(memory)
