"""Retractions: "I no longer live in Berlin", "I don't like jazz anymore", "I quit smoking".

A retraction is a negative claim on the slot it closes: the same entity, attribute and value as the
belief it ends, with polarity `negative`, so reconcile can close that belief instead of keeping it
beside a new one. The sentence is read back in its positive form ("I live in Berlin") by the
ordinary rules, and their findings are turned negative with a text that says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from beliefs.records import MemoryType, Polarity
from reading.extract import lexicon
from reading.extract.finding import Finding, Subject
from reading.extract.text import third_person
from reading.extract.values import clip
from reading.gates import contains_any

#: The words that make a sentence a retraction; any of them opens the slower patterns.
_GATE = re.compile(
    r"(?i:\bno longer\b|\banymore\b|\bany more\b|\bany longer\b|\bthese days\b|\bnowadays\b|\bstopped\b|"
    r"\bquit\b|\bgave up\b|\bgiven up\b|\bused to\b|\bhaven'?t\b.*\bin (?:years|months|ages|a while)\b)"
)
_TAIL = re.compile(
    r"(?i:,?\s*\b(?:anymore|any more|any longer|these days|nowadays|in (?:years|months|ages|a while))\b)"
)
_NEGATED = (
    (re.compile(r"(?i:\bI\s+(?:do not|don't|dont)\s+)"), "I "),
    (re.compile(r"(?i:\bwe\s+(?:do not|don't|dont)\s+)"), "we "),
    (re.compile(r"(?i:\bI\s+(?:am|'m|’m)\s+(?:not|no longer)\s+)"), "I am "),
    (re.compile(r"(?i:\bI\s+no longer\s+)"), "I "),
    (re.compile(r"(?i:\bI\s+(?:have not|haven't)\s+(?:used|been using)\s+)"), "I use "),
    (re.compile(r"(?i:\bI\s+used to\s+)"), "I "),
)
_USE = re.compile(
    r"(?i:\bI(?:\s+have|'ve|’ve)?\s+(?:stopped|quit|gave up|given up)\s+using\s+|\bI\s+(?:am|'m|’m)\s+not\s+using\s+|"
    r"\bI\s+(?:have not|haven't)\s+used\s+|\bI\s+(?:do not|don't)\s+use\s+)(?P<v>[^.,!?;]{1,40})"
)
_CONSUMES = re.compile(
    r"(?i:\bI\s+(?:do not|don't|dont|no longer)\s+(?P<verb>drink|smoke|vape|take|do)\s+)(?P<v>[^.,!?;]{1,40})"
)
_HABIT = re.compile(
    r"(?i:\bI(?:\s+have|'ve|’ve)?\s+(?:finally\s+|just\s+)?(?:stopped|quit|gave up(?:\s+on)?|given up(?:\s+on)?)\s+)"
    r"(?!(?i:by|at|in|to|for|and|it|that|there|here|on|after|before|when|because|so|my job|the job|work)\b)(?P<v>[^.,!?;]{1,40})"
)
_PET = re.compile(
    rf"(?i:\b(?:I|we)\s+(?:do not|don't|no longer)\s+(?:have|own)\s+(?:the|our|my|a|an)\s+)(?P<v>(?i:{lexicon.PETS}))\b"
)
_LEFT_EMPLOYER = re.compile(
    r"(?i:\bI(?:\s+am|'m|’m)\s+(?:no longer|not)\s+(?:with|at)\s+)(?P<v>[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,3})"
)

#: Reads a positive sentence: the ordinary rules, passed in so this module stays below them.
PositiveReader = Callable[[str], list[Finding]]


_WORDS = ("no longer", "anymore", "any more", "any longer", "these days", "nowadays", "stopped", "quit", "gave up",
          "given up", "used to", "haven")  # fmt: skip


def _third(match: re.Match[str]) -> str:
    verb = match.group("verb").lower()
    return {"do": "does"}.get(verb, verb + ("es" if verb.endswith(("sh", "ch", "o")) else "s"))


def is_retraction(sentence: str) -> bool:
    return contains_any(sentence, _WORDS) and _GATE.search(sentence) is not None


def _value(raw: str) -> str | None:
    value = clip(_TAIL.sub("", raw), 5)
    return value.strip() if value else None


def _negated_text(text: str, subject: Subject) -> str:
    """ "User lives in Berlin." -> "User no longer lives in Berlin."; "User is married." -> "... is no longer married."."""
    lead = subject.name + " "
    if not text.startswith(lead):
        return text
    rest = text[len(lead) :]
    head, _, tail = rest.partition(" ")
    if head in ("is", "are", "was") and tail:
        return f"{lead}{head} no longer {tail}"
    return f"{lead}no longer {rest}"


def _closing(finding: Finding, subject: Subject) -> Finding:
    attribute = "likes" if finding.attribute == "dislikes" else finding.attribute
    return finding.but(attribute=attribute, polarity=Polarity.NEGATIVE, text=_negated_text(finding.text, subject),
                       is_correction=False)  # fmt: skip


def retraction_findings(sentence: str, subject: Subject, read_positive: PositiveReader) -> list[Finding]:
    """The negative claims of a retraction sentence; [] when it retracts nothing the rules know."""
    if not is_retraction(sentence):
        return []
    employer = _LEFT_EMPLOYER.search(sentence)
    if employer:
        return [Finding(text=f"{subject.name} no longer works at {employer.group('v')}.", type=MemoryType.FACT,
                        importance=0.75, attribute="works_at", value=employer.group("v"), polarity=Polarity.NEGATIVE)]  # fmt: skip
    pet = _PET.search(sentence)
    if pet:
        kind = pet.group("v").lower()
        return [Finding(text=f"{subject.name} no longer has a {kind}.", type=MemoryType.FACT, importance=0.6,
                        attribute="has_pet", value=kind, polarity=Polarity.NEGATIVE)]  # fmt: skip
    used = _USE.search(sentence)
    if used and (value := _value(used.group("v"))):
        return [Finding(text=f"{subject.name} no longer uses {value}.", type=MemoryType.FACT, importance=0.6,
                        attribute="uses_tool", value=value, polarity=Polarity.NEGATIVE)]  # fmt: skip
    consumed = _CONSUMES.search(sentence)
    if consumed and (value := _value(consumed.group("v"))):
        return [Finding(text=f"{subject.name} no longer {_third(consumed)} {value}.", type=MemoryType.FACT,
                        importance=0.65, attribute="habit", value=value, polarity=Polarity.NEGATIVE)]  # fmt: skip
    habit = _HABIT.search(sentence)
    if habit and (value := _value(habit.group("v"))):
        clause = sentence[habit.start() : habit.end()]
        clause = _TAIL.sub("", clause).strip(" ,")
        text = third_person(clause, subject.name, subject.possessive).rstrip(" .") + "."
        return [Finding(text=text, type=MemoryType.FACT, importance=0.65, attribute="habit", value=value,
                        polarity=Polarity.NEGATIVE)]  # fmt: skip
    positive = sentence
    for pattern, replacement in _NEGATED:
        positive = pattern.sub(replacement, positive)
    if positive == sentence:
        return []
    positive = _TAIL.sub("", positive)
    found = [finding for finding in read_positive(positive) if finding.attribute and finding.attribute != "diet"
             or (finding.attribute == "diet" and not (finding.value or "").startswith("no "))]  # fmt: skip
    return [
        _closing(finding, subject)
        for finding in found
        if finding.attribute not in ("avoid", "goal", "decision")
    ]
