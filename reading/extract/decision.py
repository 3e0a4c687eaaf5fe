"""Decisions, keyed by what they decide: "we went with Rust for the parser" -> parser / decision / Rust.

A decision is single-valued per matter, so the matter has to be read out of the sentence ("for the
parser", "as our main database", "For hosting, ..."); a later decision on the same matter then
supersedes the earlier one. Without a stated matter ("I decided to learn Spanish") the decision is
the speaker's own and the entity is the speaker.
"""

from __future__ import annotations

import re

from beliefs.records import MemoryType
from reading.extract.finding import Finding, Subject
from reading.extract.text import third_person
from reading.extract.values import clip, clip_object
from reading.gates import contains_any

_WHO = (
    r"(?P<who>\b(?:I|we|my team|our team|the team|my (?:wife|husband|partner|family) and I|[A-Z]\w+ and I))"
)
_HAVE = r"(?:\s+(?:have|had|are|am|were|was|has)|'ve|’ve|'re|’re|'m|’m)?"
_ADV = r"(?:\s+(?:just|finally|eventually|ultimately|already|also|now|really|officially|all))*"
_CHOICE = (
    r"chose|chosen|choose|picked(?!\s+up)|pick(?!\s+up)|selected|decided on|went with|gone with|going with|settled on|opted for|"
    r"switched to|migrated to|agreed on|ended up (?:going with|choosing|picking|with|using)|landed on|voted for|"
    r"(?:decided|agreed|chose) to (?:use|go with|adopt|switch to|move to|standardi[sz]e on)|standardi[sz]ed on"
)
_DECIDED = re.compile(rf"(?i:{_WHO}{_HAVE}{_ADV}\s+(?P<verb>{_CHOICE})\s+)(?P<v>[^.!?;]{{2,80}})")
_DECIDED_TO = re.compile(rf"(?i:{_WHO}{_HAVE}{_ADV}\s+decided\s+(?:to|that)\s+)(?P<v>[^.!?;]{{2,80}})")
_SWITCHED = re.compile(
    rf"(?i:{_WHO}{_HAVE}{_ADV}\s+(?:switched|moved|migrated|changed)\s+(?:the\s+|our\s+|my\s+)?)"
    r"(?P<m>[\w .-]{2,30}?)\s+(?i:from)\s+(?P<old>[^.!?;,]{1,30}?)\s+(?i:to)\s+(?P<v>[^.!?;,]{1,40})"
)
_NOUN_DECISION = re.compile(
    r"(?i:\b(?:the|our|my|final)\s+(?:decision|choice|call|pick)\s+(?:was|is)\s+(?:to\s+(?:go with|use|adopt|pick|choose)\s+)?)"
    r"(?P<v>[^.!?;]{2,80})"
)
_MOVING = re.compile(
    rf"(?i:{_WHO}{_HAVE}{_ADV}\s+(?:switching|moving|migrating|changing)\s+(?:our\s+|the\s+|my\s+)?)"
    r"(?P<m>[\w .-]{2,30}?)\s+(?i:over\s+)?(?i:to)\s+(?P<v>[A-Z][^.!?;,]{0,40})"
)
_LEAD_MATTER = re.compile(
    r"(?i:^(?:for|on)\s+(?P<m>(?:the\s+|our\s+|my\s+|this\s+)?[\w -]{2,40}?)(?:,\s+|\s+(?=(?:I|we|the team|our team)\s)))"
)
_MATTER = re.compile(
    r"(?i:\s+(?:for|as)\s+(?:the\s+|our\s+|my\s+|this\s+|a\s+|all\s+(?:our\s+|my\s+|the\s+)?)?(?P<m>[\w -]{2,40}))"
)
_VALUE_END = re.compile(
    r"(?i:\s+(?:for|as|over|instead of|rather than|in place of|because|since|after|so)\b|,)"
)
_ARTICLE = re.compile(r"(?i:^(?:the|a|an|our|my|some)\s+)")
_NOT_A_MATTER = re.compile(
    r"(?i:^(?:now|good|real|sure|a while|years?|months?|weeks?|days?|today|me|us|them|it)\b)"
)


def _matter(text: str) -> str | None:
    text = re.split(r"(?i:\s+(?:because|since|so that|which|but)\b|,)", text, maxsplit=1)[0] if text else ""
    match = _MATTER.search(text) if text else None
    if match is None:
        return None
    matter = clip(match.group("m"), 4)
    if not matter or _NOT_A_MATTER.match(matter):
        return None
    return matter


def _who_text(who: str, subject: Subject) -> str:
    lower = who.lower()
    if lower == "i":
        return subject.name
    if lower == "we":
        return f"{subject.name} and their team"
    if lower.endswith(" and i"):
        other = who[: -len(" and I")].replace("my ", "").replace("My ", "")
        return f"{subject.name} and their {other}" if other[:1].islower() else f"{subject.name} and {other}"
    return f"{subject.possessive} team"


def _text(sentence: str, start: int, end: int, who: str, subject: Subject, lead: str) -> str:
    clause = sentence[start:end].strip(" ,")
    if who.lower() == "i":
        body = third_person(clause, subject.name, subject.possessive)
    else:
        rest = re.sub(r"^(?:'|’)re\b", " are", clause[len(who) :])
        rest = re.sub(r"^(?:'|’)ve\b", " have", rest)
        body = _who_text(who, subject) + rest
        body = third_person(body, subject.name, subject.possessive)
        body = re.sub(r"\b(?:our|my)\b", "their", body)
    if lead:
        body = f"For {lead.strip()}, {body[:1].lower() + body[1:] if not body.startswith(subject.name) else body}"
    return body.rstrip(" .,") + "."


_WORDS = ("chose", "chosen", "choose", "pick", "select", "decided", "went with", "gone with", "going with", "settled",
          "decision", "choice", "call", "switching", "moving", "migrating", "changing",
          "opted", "switched", "migrated", "agreed", "ended up", "landed on", "voted", "standardi", "moved", "changed")  # fmt: skip


def decision_findings(sentence: str, subject: Subject) -> list[Finding]:
    """The decision a sentence records, keyed by its matter when it names one."""
    if not contains_any(sentence, _WORDS):
        return []
    lead = _LEAD_MATTER.match(sentence)
    body_at = lead.end() if lead else 0
    lead_matter = clip(_ARTICLE.sub("", lead.group("m")), 4) if lead else None
    switched = _SWITCHED.search(sentence, body_at) or _MOVING.search(sentence, body_at)
    if switched:
        value = clip(switched.group("v"), 6)
        matter = clip(switched.group("m"), 4)
        if value and matter:
            text = _text(sentence, switched.start(), switched.end(), switched.group("who"), subject, "")
            return [_finding(text, matter, value)]
    noun = _NOUN_DECISION.search(sentence)
    if noun:
        raw = noun.group("v")
        cut = _VALUE_END.search(raw)
        value = clip_object(_ARTICLE.sub("", (raw[: cut.start()] if cut else raw).strip()), 8)
        if value:
            matter = lead_matter or _matter(raw[cut.start() :] if cut else "")
            text = f"{subject.possessive} decision: {sentence[noun.start('v') :].strip().rstrip('.!')}."
            return [_finding(text, matter, value)]
    for pattern in (_DECIDED, _DECIDED_TO):
        match = pattern.search(sentence, body_at)
        if match is None:
            continue
        raw = match.group("v")
        cut = _VALUE_END.search(raw) if pattern is _DECIDED else None
        value_raw = raw[: cut.start()] if cut else raw
        value = clip_object(_ARTICLE.sub("", value_raw.strip()), 8)
        if not value:
            continue
        rest = raw[cut.start() :] if cut else ""
        uses = pattern is _DECIDED or "use" in match.group(0).lower()
        matter = lead_matter or (_matter(rest) if uses else None)
        clause_end = match.start("v") + len(raw)
        text = _text(
            sentence, match.start(), clause_end, match.group("who"), subject, lead.group("m") if lead else ""
        )
        return [_finding(text, matter, value)]
    return []


def _finding(text: str, matter: str | None, value: str) -> Finding:
    return Finding(text=text, type=MemoryType.DECISION, importance=0.85, attribute="decision", value=value,
                   entity=matter)  # fmt: skip
