"""A correction makes a belief: "Sorry, it's 120, not 90." said after "My rail pass is 90 a month."

The correcting turn names no slot, only the old and the new value; the belief it corrects (the one
whose value is the old one) gives the rest. The corrected claim is that belief's entity, attribute
and text with the new value, said now, as a correction. Pure: the caller finds the candidate beliefs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from beliefs.confidence import CORRECTION_CONFIDENCE
from beliefs.records import Claim, Memory, Turn, Visibility
from beliefs.statements import UpdateKind
from reading.extract.framing import CORRECTION_MIN_IMPORTANCE
from reading.statement_shape import contrasted_values, read_shape
from reading.subject import value_terms

Belief = Claim | Memory
#: A contrast said with no correction cue ("sorry", "I meant") corrects only when it is the whole turn.
_BARE_CONTRAST_WORDS = 6
#: What opens the new value without being part of it ("it's Braga", "that's 120").
_OPENER = re.compile(r"(?i:^(?:it|that|this|which)(?:'s|’s|\s+is|\s+was)\s+)")


def names_a_correction(text: str) -> bool:
    """Whether the text contrasts a new value with an old one ("Braga, not Porto"): worth a look-up."""
    return bool(contrasted_values(text))


def visible_to(turn: Turn, agent_id: str | None, visibility: Visibility) -> bool:
    """Whether a belief of this scope (an agent's private one, or the user's shared ones) is the
    turn's to correct: a private turn sees its agent's and the shared beliefs, a shared turn the shared."""
    if visibility is not Visibility.AGENT:
        return True
    return turn.visibility is Visibility.AGENT and agent_id == turn.agent_id


def _is_number(value: str) -> bool:
    return value[:1].isdigit()


def _replaced(text: str, old: str, new: str) -> str | None:
    """`text` with the value `old` said as `new` (case-insensitive, whole words), None if absent."""
    pattern = re.compile(rf"(?<![\w]){re.escape(old)}(?![\w])", re.IGNORECASE)
    return pattern.sub(new, text, count=1) if pattern.search(text) else None


def corrected_claims(text: str, beliefs: Sequence[Belief]) -> list[Claim]:
    """The claims a correcting turn makes of the beliefs it corrects: at most one per slot."""
    shape = read_shape(text)
    if shape is None or shape.kind is not UpdateKind.CORRECTION:
        return []
    if not shape.cues and len(text.split()) > _BARE_CONTRAST_WORDS:
        return []  # "It's Braga, not Porto, where my sister lives": a contrast about something else
    out: dict[tuple[str | None, str], Claim] = {}
    for old, said in contrasted_values(text):
        new = _OPENER.sub("", said)
        old_terms, new_terms = value_terms(old), value_terms(new)
        if not old_terms or not new_terms or old_terms == new_terms or _is_number(old) != _is_number(new):
            continue
        for belief in beliefs:
            if not belief.attribute or not belief.value or value_terms(belief.value) != old_terms:
                continue
            key = (belief.entity, belief.attribute)
            corrected = _replaced(belief.text, belief.value, new) or _replaced(belief.text, old, new)
            if key in out or corrected is None:
                continue
            out[key] = Claim(
                text=corrected, type=belief.type, topic=belief.topic,
                importance=max(belief.importance, CORRECTION_MIN_IMPORTANCE), confidence=CORRECTION_CONFIDENCE,
                entity=belief.entity, attribute=belief.attribute, value=new, polarity=belief.polarity,
                context=belief.context, recall_semantics=belief.recall_semantics, trigger=belief.trigger,
                profile=belief.profile, is_correction=True, evidence=text.strip()[:500],
                half_life_days=belief.half_life_days,
            )  # fmt: skip
    return list(out.values())
