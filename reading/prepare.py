"""The text steps of the write path, turn by turn: strip → redact → classify junk → (extract) → memories.

Each step is a plain function; `prepare_batch` runs them over a micro-batch and hands the
extractor only the turns worth reading, with their cleaned text (and the other speakers' ordinary
turns as context); `gate_outcome` says of each turn whether it reached the extractor and why not. The cleaned text (never the raw
one) is also what an episode keeps (`reading.episode_keeping`). A memory's trust is decided here: the role
and the claim's confidence, capped by its provenance (`reading.provenance`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from beliefs.attributes import DEFAULT_HALF_LIFE_BY_TYPE, attribute_spec
from beliefs.confidence import TRUSTED_CONFIDENCE
from beliefs.episodes import Episode
from beliefs.records import Claim, Memory, Role, Trust, Turn, memory_id_for
from reading.canonical_claim import normalize_claim
from reading.episode_keeping import content_free_reason, episode_of
from reading.extract.write_policy import worth_storing
from reading.extractor import Extractor
from reading.junk import NON_USER_ROLE, classify_junk
from reading.provenance import Provenance, Reading, read
from reading.secrets import redact_secrets
from reading.sensitivity import sensitivity_of
from reading.strip import strip_injected


@dataclass(frozen=True)
class PreparedTurn:
    """A turn after the text steps: either skipped with a reason, or cleaned text to extract from.

    `episode_skip_reason` is None when the cleaned text is kept as an episode (also for turns no
    memory is extracted from).
    """

    turn: Turn
    text: str
    skip_reason: str | None = None
    redacted: tuple[str, ...] = ()
    episode_skip_reason: str | None = None

    def episode(self, now: datetime, retention_days: float = 0.0) -> Episode | None:
        """The episode this turn is kept as, None when its text is content-free."""
        if self.episode_skip_reason is not None:
            return None
        provenance = self.reading().of_turn() if self.turn.role is Role.USER else None
        return episode_of(self.turn, self.text, self.skip_reason, now, retention_days, provenance)

    def reading(self) -> Reading:
        """The provenance analysis of the cleaned text (`.of_turn()` is the turn's, for its episode)."""
        return read(self.turn, self.text)


def clean_turn(turn: Turn, extra_patterns: Sequence[str] = ()) -> PreparedTurn:
    """Strip injected memory blocks, redact secrets, and decide whether the turn is junk."""
    text = strip_injected(turn.text, extra_patterns)
    text, kinds = redact_secrets(text)
    verdict = classify_junk(text, turn.role)
    reason = verdict.reason if verdict else None
    return PreparedTurn(turn, text, reason, tuple(kinds), content_free_reason(text, turn.role, reason))


#: What the gate says of a turn the extractor reads for claims.
EXTRACTED = "extracted"


def gate_outcome(prepared: PreparedTurn) -> str:
    """Whether the turn reaches the extractor (`EXTRACTED`) or, if not, why: the junk step's reason
    (`secret_only` for a turn that was only a secret, `non_user_role` for another speaker's turn)."""
    return prepared.skip_reason or EXTRACTED


def _context_only(prepared: PreparedTurn) -> bool:
    """Another speaker's ordinary turn: the extractor sees it as context (what was asked) only."""
    return prepared.skip_reason == NON_USER_ROLE and bool(prepared.text.strip())


async def extract_claims(prepared: Sequence[PreparedTurn], extractor: Extractor) -> list[list[Claim]]:
    """Claims per prepared turn (skipped turns get none), one extractor call for the batch; whatever
    the extractor, a claim under the importance floor is not kept (`write_policy.worth_storing`).
    The other speakers' ordinary turns go along, in order, as context: their claims are never kept."""
    passed = [p for p in prepared if p.skip_reason is None or _context_only(p)]
    extracted = await extractor.extract([p.turn.model_copy(update={"text": p.text}) for p in passed])
    by_turn = {
        id(p): [claim for claim in claims if worth_storing(claim)]
        for p, claims in zip(passed, extracted, strict=True)
        if p.skip_reason is None
    }
    return [by_turn.get(id(p), []) for p in prepared]


_SPACE = re.compile(r"\s+")


def claim_key(claim: Claim) -> str:
    """What makes two claims of one turn the same claim: its slot and its normalized text."""
    text = _SPACE.sub(" ", claim.text.casefold()).strip()
    return f"{claim.entity or ''}|{claim.attribute or ''}|{claim.context or ''}|{text}"


def _half_life(claim: Claim) -> float:
    if claim.half_life_days is not None:
        return claim.half_life_days
    spec = attribute_spec(claim.attribute)
    return spec.half_life_days if spec else DEFAULT_HALF_LIFE_BY_TYPE[claim.type]


def memory_from_claim(turn: Turn, claim: Claim, now: datetime, provenance: Provenance | None = None) -> Memory:
    """Give a claim its scope, provenance, trust, sensitivity and deterministic id.

    The id comes from the claim as extracted; the memory carries it normalised (`reading.canonical_claim`),
    so reconcile compares one spelling of every attribute and value, whichever extractor spoke.
    Trust: only the user's confident words are trusted, and never above what the claim's
    provenance allows (quoted, injected or third-person content is untrusted).
    """
    memory_id = memory_id_for(turn.tenant_id, turn.turn_id, claim_key(claim))
    claim = normalize_claim(claim, frozenset({turn.speaker} if turn.speaker else ()))
    sensitivity = sensitivity_of(claim.attribute, claim.value, claim.text)
    trusted = turn.role is Role.USER and claim.confidence >= TRUSTED_CONFIDENCE
    trust = Trust.TRUSTED if trusted else (Trust.CAUTION if turn.role is Role.USER else Trust.UNTRUSTED)
    if provenance is not None:
        trust = provenance.cap(trust)
    said_at = claim.valid_from or turn.ts
    return Memory(
        id=memory_id,
        tenant_id=turn.tenant_id,
        user_id=turn.user_id,
        agent_id=turn.agent_id,
        visibility=turn.visibility,
        text=claim.text,
        type=claim.type,
        topic=claim.topic,
        importance=claim.importance,
        confidence=claim.confidence,
        entity=claim.entity,
        attribute=claim.attribute,
        value=claim.value,
        context=claim.context,
        polarity=claim.polarity,
        sensitivity=sensitivity.value if sensitivity else None,
        recall_semantics=claim.recall_semantics,
        trigger=claim.trigger,
        profile=claim.profile,
        source_role=turn.role,
        source_session=turn.session_id,
        source_turn_ids=[turn.turn_id],
        evidence=claim.evidence,
        trust=trust,
        created_at=now,
        valid_from=said_at,
        expires_at=claim.expires_at,
        last_confirmed=turn.ts,
        decay_score=None,  # the decay job scores it on its first run (recall reads None as 1)
        half_life_days=_half_life(claim),
    )


def memories_from_claims(
    turn: Turn, claims: Sequence[Claim], now: datetime, text: str | None = None
) -> list[Memory]:
    """At most one memory per distinct claim of a turn; `text` is the cleaned text the claims
    were read from (the turn's own text when not given), which decides each claim's provenance."""
    if not claims:
        return []
    reading = read(turn, turn.text if text is None else text)
    memories: dict[str, Memory] = {}
    for claim in claims:
        memory = memory_from_claim(turn, claim, now, reading.of_claim(claim.evidence))
        memories.setdefault(memory.id, memory)
    return list(memories.values())
