"""The write policy: what the extractor re-checks in the model's claims before they are stored.

The model is asked for the same rules, but it cannot be trusted with them: anything touching a
redaction is dropped, and a claim from a hypothetical or roleplay framing has its confidence capped
at 0.3 whatever the model said. Pure functions from claims and the turn text to claims.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agents.secrets import REDACTION_PREFIX
from streams.records import Claim

#: Confidence ceiling of anything said inside a hypothetical or roleplay framing.
HYPOTHETICAL_CONFIDENCE_CAP = 0.3

#: Marks a span the caller redacted before extraction (`agents.secrets`' marker without its colon,
#: so a model's "[redacted]" is caught too); nothing touching one is stored.
REDACTION_MARK = REDACTION_PREFIX.removesuffix(":")

#: Framings under which a first-person statement is not an assertion about the speaker.
HYPOTHETICAL_MARKERS = re.compile(
    r"""\b(?:
        what\s+if\s+i\s+(?:were|was|am|had|worked|lived)
      | if\s+i\s+were
      | as\s+if\s+i\s+(?:were|was)
      | imagine | imagining
      | pretend | pretending
      | suppose | supposing
      | hypothetical | hypothetically
      | let'?s\s+say
      | role[\s-]?play(?:ing)?
      | in\s+character
      | play(?:ing)?\s+the\s+(?:role|part)
      | i(?:'?m|\s+am)\s+basically\s+an?
    )\b""",
    re.IGNORECASE | re.VERBOSE,
)


@dataclass(frozen=True)
class PolicyResult:
    """Claims after the write policy, with what it changed."""

    claims: list[Claim]
    capped: int  # confidence lowered to the hypothetical cap
    redacted: int  # dropped because they touch a redaction


def _normalise(text: str) -> str:
    text = text.replace("\u2019", "'").replace("\u2018", "'").lower()
    return re.sub(r"[ \t]+", " ", text)


def evidence_window(evidence: str, turn_text: str) -> str:
    """The sentence(s) of the turn around the evidence; the whole turn if the evidence is not in it.

    A hypothetical marker usually sits just before the span the model quotes ("imagine I'm a
    pilot"), so the enclosing sentence is judged, not the quote alone. Evidence the model did not
    copy from the turn is not trusted to narrow anything."""
    whole = _normalise(turn_text)
    quote = _normalise(evidence).strip()
    at = whole.find(quote) if quote else -1
    if at < 0:
        return whole
    boundaries = ".!?\n"
    start = max(whole.rfind(mark, 0, at) for mark in boundaries) + 1
    ends = [position for mark in boundaries if (position := whole.find(mark, at + len(quote))) >= 0]
    return whole[start : min(ends) + 1 if ends else len(whole)]


def is_hypothetical(claim: Claim, turn_text: str) -> bool:
    """Whether the claim comes from a hypothetical, roleplay or rhetorical framing."""
    return bool(HYPOTHETICAL_MARKERS.search(evidence_window(claim.evidence, turn_text)))


def touches_redaction(claim: Claim) -> bool:
    """Whether the claim repeats a redacted span (a secret the caller removed)."""
    fields = (claim.text, claim.value or "", claim.evidence)
    return any(REDACTION_MARK in field.upper() for field in fields)


def enforce_write_policy(claims: list[Claim], turn_text: str) -> PolicyResult:
    """Re-check the model: no memory from a redaction, no confident memory from a hypothetical."""
    kept: list[Claim] = []
    capped = redacted = 0
    for claim in claims:
        if touches_redaction(claim):
            redacted += 1
            continue
        if claim.confidence > HYPOTHETICAL_CONFIDENCE_CAP and is_hypothetical(claim, turn_text):
            claim = claim.model_copy(update={"confidence": HYPOTHETICAL_CONFIDENCE_CAP})
            capped += 1
        kept.append(claim)
    return PolicyResult(claims=kept, capped=capped, redacted=redacted)
