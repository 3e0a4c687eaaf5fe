"""Routines and procedures: "every Friday I back up the NAS, then check the logs, then ...".

A procedure is what the speaker does, in order, at a time or for a purpose. It is stored as type
`procedure`, attribute `procedure`, the entity is the routine's name ("friday routine", "deploy"),
and the steps are kept in the order said, in the text and in the value.
"""

from __future__ import annotations

import re

from beliefs.records import MemoryType
from reading.extract.finding import Finding, Subject
from reading.extract.text import third_person
from reading.extract.topic import topic_of
from reading.gates import contains_any

_DAY = r"(?:mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?)"
_PERIOD = (
    rf"(?:(?:{_DAY})(?:\s+and\s+{_DAY})?|day|morning|evening|night|afternoon|week|weekend|weekday|month|year|"
    r"sprint|release|deploy(?:ment)?|meeting|shift|workout|session|quarter)"
)
#: "Every Friday", "each Sunday", "on Saturdays", "before every release", "every night before bed".
_SCHEDULE = re.compile(
    rf"(?i:\b(?:(?:before|after)\s+(?:every|each)\s+(?P<a>{_PERIOD})|(?:every|each)\s+(?P<b>{_PERIOD})"
    rf"|on\s+(?P<c>{_DAY}s|weekends|weekdays|{_DAY}\s+(?:mornings|evenings|nights|afternoons))"
    r"|(?P<e>before bed|at bedtime|after work|after dinner|after lunch|first thing in the morning))\b)"
)
_HEADER = re.compile(
    r"(?i:^(?:my|our)\s+(?P<name>(?:[\w-]+\s+){0,3}?(?:routine|process|workflow|ritual|procedure|checklist|system|"
    r"method|recipe for success|approach)(?:\s+for\s+[\w -]{2,30}?)?)\s*(?::|is\b|goes\b|looks like\b)\s*)"
)
#: "When I deploy, ...", "Whenever I start a new project ...", "To onboard a client, I ...".
_PURPOSE = re.compile(
    r"(?i:^(?:when(?:ever)?\s+(?:I|we|a|an|the|my|our)\s+(?P<w>[^,]{2,50}?)|to\s+(?P<t>[a-z][^,]{2,50}?)|"
    r"(?:before|after)\s+(?P<ba>I\s+[^,]{2,40}?))(?:,\s*|\s+(?=I\s|we\s))(?P<rest>.+)$)"
)
_SEQUENCE = re.compile(r"(?i:\b(?:then|first|firstly|next|finally|afterwards|after that|last|lastly)\b)")
_STEP_SPLIT = re.compile(
    r"(?i:\s*(?:,\s*(?:and\s+)?(?:then\s+|finally\s+|lastly\s+|last\s+|next\s+|after that\s+)?|;\s*|"
    r"\s+and\s+then\s+|\s+then\s+|\s+and\s+(?:finally|lastly|last)\s+|\s+and\s+(?=(?:I|we)\s)))"
)
_STEP_SUBJECT = re.compile(
    r"(?i:^(?:and\s+)?(?:then\s+|first\s+|finally\s+|last\s+|lastly\s+)?(?:I|we)\s+(?:always\s+|usually\s+|first\s+|then\s+)*)"
)
_STEP_LEAD = re.compile(r"(?i:^(?:and\s+)?(?:then|first|firstly|next|finally|lastly|last|after that)\s+)")
_PAST = re.compile(
    r"(?i:\b(?:was|were|had|did|went|used to|got|ago|yesterday|last (?:week|year|month))\b|\b\w+ed\s+(?:to|the|my|a)\b)"
)
#: A routine is something done: "I am thrilled every day" or "I lost my keys again" is not one.
_NOT_AN_ACTION = re.compile(
    r"(?i:^(?:I|we)\s+(?:(?:really|just|also|still|usually|always)\s+)*(?:am|is|are|was|were|feel|felt|love|loved|like|"
    r"liked|think|thought|hope|know|knew|want|wanted|wish|can|could|would|should|will|have|had|get to|got|went|"
    r"lost|made|took|saw|came|found|gave|left|met|ran|said|told|\w+ed)\b)"
)
_PAST_EVENT = re.compile(
    r"(?i:\b\w+ed\b|\b(?:was|were|had|did|went|got|became|grew|began|took|made|left|met|saw)\b)"
)
_FIRST_I = re.compile(r"(?i:^(?:first|firstly)?,?\s*(?:I|we)\s+(?:usually\s+|always\s+|first\s+)*(?=[a-z]))")


def _steps(body: str, subject: Subject) -> list[str]:
    steps = []
    for raw in _STEP_SPLIT.split(body):
        step = _STEP_SUBJECT.sub("", raw.strip(" .,!"))
        step = _STEP_LEAD.sub("", step).strip(" .,!")
        if len(step.split()) >= 1 and step:
            steps.append(
                third_person(step, subject.name, subject.possessive)[:1].lower()
                + third_person(step, subject.name, subject.possessive)[1:]
            )
    return [step for step in steps if step]


def _name_of(match: re.Match[str]) -> str:
    if match.group("e"):
        said = match.group("e").lower()
        return "bedtime routine" if "bed" in said else f"{said} routine"
    period = next(group for group in match.groups() if group)
    period = period.lower().rstrip("s") if period.lower().endswith("days") else period.lower()
    return f"{period} routine"


_LISTENER = re.compile(r"(?i:\byou\b|\byour\b)")


def _finding(name: str, steps: list[str], subject: Subject, heading: str | None = None) -> Finding:
    text = f"{heading or subject.possessive + ' ' + name}: {', then '.join(steps)}."
    return Finding(
        text=text,
        type=MemoryType.PROCEDURE,
        importance=0.7,
        attribute="procedure",
        value="; ".join(steps),
        entity=name,
        topic=topic_of(text),
    )


_WORDS = ("every", "each", "on ", "before bed", "bedtime", "after work", "after dinner", "after lunch", "first thing", "routine", "process", "workflow", "ritual", "procedure", "checklist", "system",
          "method", "approach")  # fmt: skip
_OPENING = re.compile(r"(?i:^(?:when|whenever|to|before|after|first|firstly)\b)")


def procedure_findings(sentence: str, subject: Subject) -> list[Finding]:
    """The routine or procedure a sentence describes, steps in order; [] when it describes none."""
    text = sentence.strip().rstrip(".!")
    if not (_OPENING.match(text) or contains_any(text, _WORDS)) or _LISTENER.search(text):
        return []  # a sequence addressed to the listener is an instruction, not the speaker's routine
    header = _HEADER.match(text)
    if header:
        steps = _steps(text[header.end() :], subject)
        name = re.sub(r"(?i:\b(?:my|our)\b)", "", header.group("name")).strip().lower()
        return [_finding(name, steps, subject)] if steps else []
    if _PAST.search(text):
        return []
    purpose = _PURPOSE.match(text)
    if purpose and (
        _NOT_AN_ACTION.match(purpose.group("rest"))
        or _PAST_EVENT.search(purpose.group(0)[: purpose.start("rest")])
    ):
        purpose = None
    if purpose and (_SEQUENCE.search(purpose.group("rest")) or purpose.group("rest").count(",") >= 1):
        said = (purpose.group("w") or purpose.group("t") or purpose.group("ba") or "").strip()
        name = re.sub(r"^i\s+", "", said.lower())
        lead = text[: purpose.start("rest")].strip(" ,")
        heading = f"{subject.possessive} procedure " + third_person(
            lead[:1].lower() + lead[1:], subject.name, subject.possessive
        )
        steps = _steps(purpose.group("rest"), subject)
        return [_finding(name, steps, subject, heading)] if len(steps) >= 2 else []
    schedule = _SCHEDULE.search(text)
    if schedule:
        body = (text[: schedule.start()] + " " + text[schedule.end() :]).strip(" ,")
        body = re.sub(r"(?i:^(?:before bed|after work|in the morning|usually|always)\s*,?\s*)", "", body)
        if not re.match(r"(?i:^(?:I|we)\s+[a-z])", body) or _NOT_AN_ACTION.match(body):
            return []
        steps = _steps(body, subject)
        return [_finding(_name_of(schedule), steps, subject)] if steps else []
    first = _FIRST_I.match(text)
    if first and text.lower().startswith("first") and _SEQUENCE.search(text[first.end() :]):
        steps = _steps(text[first.end() :], subject)
        return [_finding("routine", steps, subject)] if len(steps) >= 2 else []
    return []
