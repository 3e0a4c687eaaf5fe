"""The offline, deterministic extractor: precompiled rules over each sentence of a user turn.

It is the default (`BELIEFSTREAM_EXTRACTOR=rules`) and the fallback when an LLM extractor is
down, so it has to be honest rather than clever: it only stores what a rule recognises, scores
confidence by how the sentence was framed, and returns [] for chit-chat. Each sentence goes through
the speech-act checks (`speech_act`), its frame (`framing`), then the readers: retractions, the
slot rules, decisions, people, teams, procedures, standing instructions; free-form preferences and
first-person experiences only when none of those read anything.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from beliefs.attributes import DEFAULT_HALF_LIFE_BY_TYPE, attribute_spec
from beliefs.records import Claim, MemoryType, Polarity, RecallSemantics, Role, Turn
from reading import junk, quotation
from reading.extract import speech_act
from reading.extract.constraints import constraint_findings
from reading.extract.decision import decision_findings
from reading.extract.experience import experience_findings
from reading.extract.finding import Finding, Subject
from reading.extract.framing import (
    CONFIDENCE,
    CORRECTION_MIN_IMPORTANCE,
    HYPOTHETICAL_MAX_IMPORTANCE,
    Frame,
    frame_of,
)
from reading.extract.instruction import instruction_findings
from reading.extract.organisation import organisation_findings
from reading.extract.patterns import rule_findings
from reading.extract.preferences import preference_findings, stated_preference_findings
from reading.extract.procedure import procedure_findings
from reading.extract.relative_dates import find_time_mentions, render_absolute
from reading.extract.relatives import relative_findings
from reading.extract.retraction import retraction_findings
from reading.extract.stance import stance_findings
from reading.extract.task_state import is_task_state
from reading.extract.taste import free_preference_findings
from reading.extract.text import expand_contractions, sentence_spans
from reading.extract.topic import topic_of
from reading.extract.values import bounded
from reading.extract.volatile import is_volatile, volatile_end
from reading.extract.write_policy import worth_storing
from reading.secrets import REDACTION_PREFIX, redact_secrets
from reading.strip import strip_injected

#: At most this many claims per turn (the extractor contract: 0-5).
MAX_CLAIMS_PER_TURN = 5
#: Attributes a question can still disclose ("As a vegetarian, what should I cook?").
_QUESTION_SAFE = frozenset(
    {"diet", "allergy", "medical_condition", "accessibility", "has_child", "has_pet", "works_at", "role",
     "lives_in", "hometown", "name", "pronouns", "age", "response_format", "communication_style",
     "measurement_units", "preferred_language"}
)  # fmt: skip
#: Findings about the speaker that stay when a sentence is about one of their people.
_OWN_PEOPLE = frozenset({"has_child", "has_pet"})
#: "I live in Oslo and work at Equinor": the second verb shares the subject.
_SHARED_SUBJECT = re.compile(
    r"(?i:\b(?<=,|\s)and\s+(?=(?:work|live|have|use|play|speak|own|teach|study)\s+(?:at|in|for|as|a|an|the|two|three)\b))"
)
#: Claims that name an event, so a date said outside their clause still belongs in their text.
_DATED_EVENTS = frozenset({None, "lives_in", "works_at", "has_pet", "has_child", "relationship_status", "hobby",
                           "decision", "goal"})  # fmt: skip
_CONTEXT = (
    re.compile(r"(?i:\b(?:for|at|in|with|during|on)\s+my\s+(?P<c>[a-z]+(?:\s+[a-z]+)?)\s+(?:work|job|gig|clients?|projects?|role|business|team)\b)"),
    re.compile(r"(?i:\b(?:for|at)\s+(?P<c>work|home|school|university|college|the office)\b)"),
    re.compile(r"(?i:\bon (?P<c>weekends|weekdays)\b)"),
)  # fmt: skip


def _context(sentence: str) -> str | None:
    for pattern in _CONTEXT:
        match = pattern.search(sentence)
        if match:
            return match.group("c").lower()
    return None


def _framed(finding: Finding, frame: Frame) -> Finding:
    """Apply the sentence's frame: hypotheticals stay below 0.3, corrections above 0.9."""
    if frame is Frame.HYPOTHETICAL:
        return finding.but(
            confidence=CONFIDENCE[frame],
            importance=min(finding.importance, HYPOTHETICAL_MAX_IMPORTANCE),
            text=finding.text.rstrip(".") + " (said hypothetically).",
        )
    if (frame is Frame.CORRECTION and finding.attribute) or finding.is_correction:
        return finding.but(
            is_correction=True,
            confidence=CONFIDENCE[Frame.CORRECTION],
            importance=max(finding.importance, CORRECTION_MIN_IMPORTANCE),
        )
    if frame is Frame.HEDGED:
        return finding.but(confidence=min(finding.confidence, CONFIDENCE[frame]))
    return finding


def _rules(clause: str, subject: Subject) -> list[Finding]:
    """The structured rules alone, on a first-person clause (also used on rewritten clauses)."""
    return preference_findings(clause, clause.lower(), subject) + rule_findings(
        clause, clause.lower(), subject
    )


def _read(clause: str, subject: Subject, frame: Frame) -> list[Finding]:
    """Every reader over one (reframed) clause, most specific first."""
    if frame is not Frame.HYPOTHETICAL:
        retracted = retraction_findings(clause, subject, lambda positive: _rules(positive, subject))
        if retracted:
            return retracted
    found = _rules(clause, subject) + decision_findings(clause, subject)
    people = relative_findings(clause, subject, _rules)
    if people:
        return [finding for finding in found if finding.attribute in _OWN_PEOPLE] + people
    if not any(finding.attribute == "works_at" for finding in found):
        found.extend(organisation_findings(clause, subject))
    found.extend(procedure_findings(clause, subject))
    found.extend(instruction_findings(clause, subject))
    return found


def sentence_findings(sentence: str, subject: Subject, following: str = "") -> list[Finding]:
    """Everything the rules read in one sentence, already framed (`following`: the next sentence)."""
    if REDACTION_PREFIX in sentence or junk.sentence_junk_reason(sentence):
        return []
    if speech_act.is_echo(sentence) or speech_act.is_sarcasm(sentence):
        return []
    if speech_act.quotes_someone(sentence):  # someone else's words are not the user's; the rest may be
        sentence = speech_act.own_words(sentence)
        if not sentence:
            return []
    constraints = constraint_findings(sentence, subject)
    if constraints:
        return constraints
    framed = frame_of(sentence, following)
    clause = _SHARED_SUBJECT.sub("and I ", expand_contractions(framed.clause))
    found = _read(clause, subject, framed.frame)
    is_question = framed.clause.rstrip().endswith("?")  # an asserting question is read as its statement
    if is_question and framed.frame is not Frame.HYPOTHETICAL:
        found = [finding for finding in found if finding.attribute in _QUESTION_SAFE]
    elif framed.frame is not Frame.HYPOTHETICAL:
        stance = None
        if not any(finding.type is MemoryType.PREFERENCE or finding.polarity is Polarity.NEGATIVE for finding in found):
            stance = stance_findings(clause, subject, lambda part: _read(part, subject, framed.frame))
        if stance:
            found = stance
        elif _restricts_diet(found):
            found = found + free_preference_findings(clause, subject)
        elif not found:
            found = (
                stated_preference_findings(clause, subject)
                or free_preference_findings(clause, subject)
                or experience_findings(clause, subject)
            )
    if framed.frame is not Frame.HYPOTHETICAL and is_task_state(sentence):  # the work at hand: only a state said for now is kept, and it expires
        found = [finding for finding in found if is_volatile(finding.attribute, finding.type, sentence)]
    return [_framed(finding, framed.frame) for finding in _deduplicated(found)]


def _restricts_diet(found: list[Finding]) -> bool:
    """A diet said as an avoidance ("I never eat pork"): the diet is a (safety) fact, the avoidance a
    preference of its own, as when the two are said in two clauses."""
    return any(f.attribute == "diet" and (f.value or "").startswith("no ") for f in found) and not any(
        f.type is MemoryType.PREFERENCE for f in found
    )


_CLAUSES = re.compile(r"(?i:,?\s+(?:and|but|while)\s+(?=(?:my|I|our|we)\b)|;\s*|,\s+(?=(?:my|I)\b))")


def _readable_parts(sentence: str) -> list[str]:
    """The sentence, or the clauses of it that hold no secret: "I work at Initech" survives its password."""
    if REDACTION_PREFIX not in sentence:
        return [sentence]
    return [
        part.strip(" ,")
        for part in _CLAUSES.split(sentence)
        if part.strip(" ,") and REDACTION_PREFIX not in part
    ]


def _deduplicated(found: list[Finding]) -> list[Finding]:
    seen: set[tuple[str | None, str | None, str | None, str]] = set()
    unique = []
    for finding in found:
        key = (
            finding.entity,
            finding.attribute,
            (finding.value or "").lower(),
            "" if finding.attribute else finding.text,
        )
        if key in seen:
            continue
        seen.add(key)
        unique.append(finding)
    return unique


def _unmasked(claim: Claim, quotes: quotation.Masked) -> Claim:
    """The claim with the quotations its sentence was read without put back in its words."""
    if not quotes.originals:
        return claim
    value = quotes.restore(claim.value) if claim.value else claim.value
    return claim.model_copy(
        update={"text": quotes.restore(claim.text), "value": value, "evidence": quotes.restore(claim.evidence)}
    )


class RulesExtractor:
    """Deterministic, offline extraction: same turn in, same claims out."""

    name = "rules"

    def __init__(self, max_claims: int = MAX_CLAIMS_PER_TURN) -> None:
        if not 0 <= max_claims <= MAX_CLAIMS_PER_TURN:
            raise ValueError(f"max_claims must be within 0..{MAX_CLAIMS_PER_TURN}, got {max_claims}")
        self.max_claims = max_claims

    async def extract(self, turns: Sequence[Turn]) -> list[list[Claim]]:
        """One list of claims per turn, in order (the `Extractor` protocol: texts already cleaned)."""
        return [self._read(turn, turn.text) for turn in turns]

    def read_cleaned(self, turn: Turn) -> list[Claim]:
        """The claims of one turn whose text is already stripped and redacted (a stored quote read again)."""
        return self._read(turn, turn.text)

    def extract_turn(self, turn: Turn, text: str | None = None) -> list[Claim]:
        """The claims of one raw turn: stripped, redacted and junk-checked first.

        `text` replaces the turn's text when given (it is still stripped and redacted).
        """
        source = strip_injected(turn.text if text is None else text)
        clean = redact_secrets(source)[0]
        if junk.whole_turn_reason(clean, turn.role) is not None:
            return []  # per-sentence junk (greetings, thanks, sarcasm) is skipped sentence by sentence
        return self._read(turn, clean)

    def _read(self, turn: Turn, clean: str) -> list[Claim]:
        """The claims in `clean`, the turn's stripped and redacted text, sentence by sentence."""
        if turn.role is not Role.USER or self.max_claims == 0:
            return []
        clean = speech_act.unwrap_quoted_message(clean)
        if speech_act.is_injection(clean):
            return []  # a turn that instructs the memory is not the user's word about themselves
        quotes = quotation.masked(clean)  # each quotation one phrase: none of its sentences is the user's
        clean = quotes.text
        spans = list(sentence_spans(clean))
        if any(speech_act.is_injection(clean[a:b]) for a, b in spans[1:]):
            return []
        subject = Subject.of(turn)
        candidates: list[tuple[int, Claim]] = []
        for index, (left, right) in enumerate(spans):
            if index and speech_act.is_sarcasm(clean[slice(*spans[index - 1])]):
                break  # said in the breath of a sarcasm ("Great, another delay. Commuting is my hobby.")
            following = clean[slice(*spans[index + 1])] if index + 1 < len(spans) else ""
            for sentence in _readable_parts(clean[left:right]):
                for finding in sentence_findings(sentence, subject, following):
                    claim = self._claim(finding, sentence, subject, turn)
                    candidates.append((len(candidates), _unmasked(claim, quotes)))
        return self._best(candidates, turn.text)

    def _best(self, candidates: list[tuple[int, Claim]], raw: str) -> list[Claim]:
        """The most important claims worth storing (at most max_claims), in the order they were said."""
        kept = [
            (order, claim)
            for order, claim in candidates
            if claim.text.strip() != raw.strip() and worth_storing(claim)
        ]
        kept.sort(key=lambda pair: (-pair[1].importance, pair[0]))
        chosen = sorted(kept[: self.max_claims], key=lambda pair: pair[0])
        return [claim for _, claim in chosen]

    def _claim(self, finding: Finding, sentence: str, subject: Subject, turn: Turn) -> Claim:
        spec = attribute_spec(finding.attribute)
        text = finding.text
        valid_from = None
        expires_at = finding.expires_at
        mentions = find_time_mentions(sentence, turn.ts)
        if mentions:
            rendered = render_absolute(text, mentions)
            if rendered == text and finding.attribute in _DATED_EVENTS:
                rendered = f"{text.rstrip('.')} {mentions[0].rendered}."  # the phrase was cut from the text
            text = rendered
            past = [mention for mention in mentions if not mention.is_future]
            if past:
                valid_from = past[0].start
        half_life = spec.half_life_days if spec else DEFAULT_HALF_LIFE_BY_TYPE[finding.type]
        if is_volatile(finding.attribute, finding.type, sentence):
            expires_at = volatile_end(finding.attribute, mentions, turn.ts)
            half_life = min(half_life, max(1, math.ceil((expires_at - turn.ts).total_seconds() / 86400)))
            if finding.attribute != "located_in" and text == finding.text:
                text = f"{text.rstrip('.')} for now (until {expires_at.date().isoformat()})."
        context = None
        if finding.attribute and finding.recall_semantics is RecallSemantics.DEFAULT:
            context = _context(sentence)
        topic = finding.topic or topic_of(text, finding.attribute, context=sentence, value=finding.value)
        return Claim(
            text=bounded(text[:1].upper() + text[1:]),
            type=finding.type,
            topic=topic,
            importance=round(finding.importance, 3),
            confidence=round(finding.confidence, 3),
            entity=finding.entity or subject.entity,
            attribute=finding.attribute,
            value=finding.value,
            polarity=finding.polarity,
            context=context,
            recall_semantics=finding.recall_semantics,
            trigger=finding.trigger,
            profile=finding.profile if finding.profile is not None else (spec.profile if spec else False),
            is_correction=finding.is_correction,
            evidence=sentence,
            valid_from=valid_from,
            expires_at=expires_at,
            half_life_days=half_life,
        )
