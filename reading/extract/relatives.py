"""Facts about the people in the speaker's life, details kept: "my sister Ana lives in Recife".

The memory is about the relative (entity "Ana", or "user's sister" without a name), and its text
keeps the relation, the name and every detail said ("User's sister Ana lives in Recife."), so a
later "where does Ana live?" finds it. The predicate is read by the ordinary rules, from the
sentence put back in the first person ("I live in Recife").
"""

from __future__ import annotations

import re
from collections.abc import Callable

from beliefs.records import MemoryType
from reading.extract.finding import Finding, Subject
from reading.extract.text import third_person

_RELATIONS = (
    "sister|brother|mom|mum|mother|dad|father|wife|husband|partner|boyfriend|girlfriend|fiancée|fiancee|fiancé|fiance|"
    "son|daughter|kid|kids|child|children|friend|best friend|cousin|aunt|uncle|grandma|grandmother|grandpa|"
    "grandfather|niece|nephew|roommate|flatmate|neighbour|neighbor|colleague|coworker|co-worker|boss|manager|"
    "mentor|stepdad|stepmom|stepson|stepdaughter|parents|grandparents|siblings|twin|spouse|therapist|doctor|dentist"
)
_PLURAL = frozenset({"kids", "children", "parents", "grandparents", "siblings"})
_SUBJECT = re.compile(
    rf"(?i:^(?:(?:and|also|so|oh|well|btw|yeah|plus)[,\s]+)*my\s+(?:(?:older|younger|little|big|eldest|oldest|youngest|"
    rf"baby|twin|best|new|ex-?|late|\d+-year-old)\s+)*(?P<rel>(?:{_RELATIONS})(?:-in-law)?)\b(?!\s+and\s+I\b))"
    r"(?:,?\s+(?P<name>[A-Z][a-zà-ÿ'’-]+)(?![a-z]),?)?"
)
_NAMED = re.compile(
    r"(?i:^\s*(?:is\s+called|is\s+named|'s\s+name\s+is|’s\s+name\s+is|name\s+is)\s+)(?P<n>[A-Z][\w'’-]+)"
)
_ADVERBS = r"(?:(?:just|also|still|now|recently|finally|really|actually|currently|always|usually)\s+)*"
_VERB = re.compile(rf"^\s*(?P<adv>{_ADVERBS})(?P<verb>[a-z]+)\b")
_BASE = {"is": "am", "has": "have", "does": "do", "goes": "go", "was": "was", "are": "am"}
#: Attributes the ordinary rules read that can be true of a relative.
_ABOUT_THEM = frozenset({"lives_in", "works_at", "role", "allergy", "diet", "medical_condition", "hometown", "hobby",
                         "likes", "dislikes", "age", "relationship_status", "located_in", "preferred_language"})  # fmt: skip

#: Reads a first-person sentence with the ordinary rules (passed in: this module sits below them).
FirstPersonReader = Callable[[str, Subject], list[Finding]]


def _base_verb(verb: str) -> str:
    lower = verb.lower()
    if lower in _BASE:
        return _BASE[lower]
    if lower.endswith("ies") and len(lower) > 4:
        return lower[:-3] + "y"
    if lower.endswith(("shes", "ches", "xes", "sses", "zes", "oes")):
        return lower[:-2]
    if lower.endswith("s") and not lower.endswith("ss"):
        return lower[:-1]
    return lower


def _first_person(predicate: str, plural: bool) -> str:
    """ "just moved to Singapore" -> "I just moved to Singapore"; "lives in Recife" -> "I live in Recife"."""
    match = _VERB.match(predicate)
    if match is None:
        return "I " + predicate.strip()
    verb = match.group("verb")
    base = verb.lower() if plural else _base_verb(verb)
    if plural and base == "are":
        base = "am"
    return f"I {match.group('adv')}{base}{predicate[match.end() :]}"


def relative_findings(sentence: str, subject: Subject, read: FirstPersonReader) -> list[Finding]:
    """What a sentence that opens with one of the speaker's people says about them."""
    if "my " not in sentence.lower():
        return []
    findings: list[Finding] = []
    parts = re.split(r"(?i:,?\s+and\s+(?=my\s)|;\s*)", sentence.strip())
    if parts[0].strip().lower() in {"i", "me"}:
        return []  # "Me and my brother are training": the speaker is in the subject, not only their people
    for part in parts:
        findings.extend(_one(part.strip().rstrip(".!"), subject, read))
    return findings


def _one(clause: str, subject: Subject, read: FirstPersonReader) -> list[Finding]:
    match = _SUBJECT.match(clause)
    if match is None:
        return []
    relation = match.group("rel").lower()
    name = match.group("name")
    predicate = clause[match.end() :]
    named = _NAMED.match(predicate)
    if named and not name:
        name = named.group("n")
        text = third_person(clause, subject.name, subject.possessive).rstrip(" ,") + "."
        return [Finding(text=text, type=MemoryType.FACT, importance=0.6, attribute=relation.replace(" ", "_"),
                        value=name)]  # fmt: skip
    if len(predicate.split()) < 2:
        return []
    entity = (
        name or f"{subject.possessive.lower() if subject.entity == 'user' else subject.possessive} {relation}"
    )
    text = (
        third_person(clause[clause.lower().index("my ") :], subject.name, subject.possessive).rstrip(" ,")
        + "."
    )
    them = Subject(entity=entity, name=entity)
    found = [
        f for f in read(_first_person(predicate, relation in _PLURAL), them) if f.attribute in _ABOUT_THEM
    ]
    if not found:
        return [Finding(text=text, type=MemoryType.FACT, importance=0.55, entity=entity)]
    return [finding.but(text=text, entity=entity) for finding in found[:1]] + [
        finding.but(text=text, entity=entity)
        for finding in found[1:]
        if finding.attribute != found[0].attribute
    ]
