"""Stated tool and working preferences: "I always use dark mode", "No, I use pytest not unittest".

One verb ("use", "prefer", "switched to") covers many attributes; what was named decides which
(a test framework, an editor, a language). A contrast ("not unittest", "instead of Vim") marks
the claim as a correction of an earlier belief.
"""

from __future__ import annotations

import re

from beliefs.attributes import attribute_spec
from beliefs.records import MemoryType
from reading.extract import lexicon
from reading.extract.finding import Finding, Subject
from reading.extract.text import third_person
from reading.extract.topic import topic_of
from reading.extract.values import clip, clip_object

_KNOWN = "|".join(
    sorted(
        (
            re.escape(key)
            for table in (lexicon.TEST_FRAMEWORKS, lexicon.EDITORS, lexicon.PROGRAMMING_LANGUAGES)
            for key in table
        ),
        key=len,
        reverse=True,
    )
)
_VERB = (
    r"write|code|program|use|prefer|favou?r|like|love|code in|write in|program in|work in|develop in|switched to|moved to|am using|"
    r"'m using|’m using|stick with|stick to|stuck with|go with|rely on|swear by|mainly use|mostly use|live in"
)
_TOOL_PREFERENCE = re.compile(
    rf"(?i:\b(?:I|we)(?:'ve|’ve| have)?(?:\s+(?:just|really|also|always|still|now|currently|actually|usually|"
    rf"mostly|mainly|generally|definitely|only|strongly|much|personally))*\s+(?:{_VERB})\s+(?:using\s+)?(?:mostly\s+|mainly\s+|only\s+|exclusively\s+|primarily\s+)?)"
    rf"(?P<v>(?i:{_KNOWN}))(?![\w+#])"
    r"(?P<contrast>(?i:,?\s+(?:not|instead of|rather than|over|and not)\s+(?P<old>[\w+#.-]+(?:\s[\w+#.-]+)?)))?"
)
_FAVOURITE_LANGUAGE = re.compile(
    rf"(?i:\bmy (?:favou?rite|preferred|go-to|main|primary) (?:programming |coding )?(?:language|editor|ide|test framework|testing framework) is\s+)"
    rf"(?P<v>(?i:{_KNOWN}))(?![\w+#])"
)
_THEME = re.compile(
    r"(?i:\b(?P<v>dark|light)(?:\s+|-)?(?:mode|theme)\b)"
    r"(?P<contrast>(?i:,?\s+(?:not|instead of|rather than|over)\s+(?P<old>dark|light)(?:\s+(?:mode|theme))?))?"
)
_THEME_INTENT = re.compile(r"(?i:\b(?:i|we|please|always|prefer|use|switch|like|love|want|keep|set)\b)")
_MEETING = re.compile(
    r"(?i:\b(?P<v>morning|afternoon|evening|early|late)s?(?:\s+(?:meetings?|calls?|standups?|syncs?|slots?|sessions?))"
    r"\s+(?:work|works|are|is|suit|suits)\s+(?:me\s+)?(?:best|better|great|well|ideal)"
    r"|\bI(?:\s+\w+)?\s+prefer\s+(?:to\s+(?:meet|have\s+(?:meetings|calls))\s+(?:in\s+the\s+)?)?(?P<v2>morning|afternoon|evening)s?"
    r"(?:\s+(?:meetings?|calls?|standups?|syncs?|slots?))?\b"
    r"|\b(?:schedule|book|put|keep)\s+(?:my\s+|our\s+|the\s+)?(?:meetings?|calls?|syncs?)\s+(?:in\s+the\s+)?(?P<v3>morning|afternoon|evening)s?)"
)
_TEMPLATES = {
    "preferred_test_framework": "{S} uses {v} for testing",
    "preferred_editor": "{S} uses {v} as their editor",
    "preferred_programming_language": "{S} prefers {v} as their programming language",
    "preferred_theme": "{S} prefers {v} mode",
}
_EMPHASIS = re.compile(r"(?i:\b(?:always|only|strongly|definitely|really|much|swear by)\b|!)")


def _preference(attribute: str, value: str, subject: Subject, sentence: str, old: str | None) -> Finding:
    text = _TEMPLATES[attribute].format(S=subject.name, v=value)
    if old:
        text += f", not {old}"
    spec = attribute_spec(attribute)
    importance = 0.9 if _EMPHASIS.search(sentence) else 0.8
    return Finding(
        text=text + ".",
        type=spec.type if spec else MemoryType.PREFERENCE,
        importance=importance,
        attribute=attribute,
        value=value,
        is_correction=bool(old),
    )


def _old_value(match: re.Match[str]) -> str | None:
    old = match.group("old")
    if not old:
        return None
    known = lexicon.canonical(old.split()[0]) or lexicon.canonical(old)
    return known[1] if known else clip(old, 2)


def preference_findings(sentence: str, lower: str, subject: Subject) -> list[Finding]:
    """Tool, language, editor, theme and meeting-time preferences stated in one sentence."""
    found: list[Finding] = []
    for pattern in (_TOOL_PREFERENCE, _FAVOURITE_LANGUAGE):
        for match in pattern.finditer(sentence):
            said = match.group("v")
            known = lexicon.canonical(said)
            if known and (said.lower() not in lexicon.CASE_SENSITIVE or said[:1].isupper()):
                old = _old_value(match) if "old" in match.re.groupindex else None
                found.append(_preference(known[0], known[1], subject, sentence, old))
    if ("mode" in lower or "theme" in lower) and _THEME_INTENT.search(sentence):
        for match in _THEME.finditer(sentence):
            old = match.group("old")
            found.append(
                _preference(
                    "preferred_theme", match.group("v").lower(), subject, sentence, old and old.lower()
                )
            )
    if "morning" in lower or "afternoon" in lower or "evening" in lower:
        for match in _MEETING.finditer(sentence):
            when = (match.group("v") or match.group("v2") or match.group("v3")).lower()
            found.append(
                Finding(
                    text=f"{subject.name} prefers {when} meetings.",
                    type=MemoryType.PREFERENCE,
                    importance=0.8,
                    attribute="preferred_meeting_time",
                    value=when,
                )
            )
    return _unique(found)


def _unique(found: list[Finding]) -> list[Finding]:
    seen: set[tuple[str | None, str | None]] = set()
    unique = []
    for finding in found:
        key = (finding.attribute, finding.value)
        if key not in seen:
            seen.add(key)
            unique.append(finding)
    return unique


# -- preferences about anything else: "I prefer tea over coffee", "I'd rather take the train" --------

_PREFER = re.compile(
    r"(?i:\bI(?:\s+would|\s+'d|'d|’d)?(?:\s+(?:really|much|generally|usually|always|definitely|personally|strongly))*"
    r"\s+(?:prefer|favou?r)(?:\s+to)?\s+)(?P<v>[^.!?;]{2,80})"
)
_RATHER = re.compile(r"(?i:\bI(?:\s+would|'d|’d)\s+(?:much\s+)?rather\s+)(?P<v>[^.!?;]{2,60}?)(?i:\s+than\b)")
_FAVOURITE_FIRST = re.compile(
    r"^(?P<v>[\w'’ -]{2,40}?)\s+(?i:is|are)\s+(?i:my)\s+(?i:(?:all-time\s+)?(?:favou?rite|go-to|preferred))\s+"
    r"(?P<k>[a-z]+(?:\s+(?!and\b|or\b|but\b)[a-z]+)?)(?=\s*(?:[.,!?;]|$|\s+(?:in|of|for|at|on|to|when|and)\b))"
)
_WHAT_I_WANT = re.compile(
    r"^(?P<v>[\w'’ -]{2,50}?)\s+(?i:is|are)\s+what\s+I\s+(?i:look for|want|prefer|like|go for|need)\b"
)
_PREFER_CUT = re.compile(
    r"(?i:\s+(?:over|to|than|rather than|instead of|when|whenever|if|because|since|but)\b|,)"
)


def stated_preference_findings(sentence: str, subject: Subject) -> list[Finding]:
    """A preference with no dedicated slot, kept under `prefers` (many values) or `likes`."""
    for pattern in (_PREFER, _RATHER, _WHAT_I_WANT):
        match = pattern.search(sentence)
        if match is None:
            continue
        raw = match.group("v")
        cut = _PREFER_CUT.search(raw) if pattern is _PREFER else None
        value = clip_object(raw[: cut.start()] if cut else raw, 6)
        if not value:
            continue
        if pattern is _WHAT_I_WANT:
            text = f"{subject.name} looks for {value[:1].lower() + value[1:]}."
        else:
            text = (
                third_person(sentence[match.start() :].strip().rstrip(".!"), subject.name, subject.possessive)
                + "."
            )
        return [
            Finding(text=text, type=MemoryType.PREFERENCE, importance=0.7, attribute="prefers", value=value,
                    topic=topic_of(text))
        ]  # fmt: skip
    favourite = _FAVOURITE_FIRST.match(sentence.strip())
    if favourite:
        value = clip_object(favourite.group("v"), 5)
        if value:
            kind = favourite.group("k").lower()
            return [Finding(text=f"{subject.possessive} favorite {kind} is {value}.", type=MemoryType.PREFERENCE,
                            importance=0.65, attribute="likes", value=value)]  # fmt: skip
    return []
