"""What a structured rule is: a gated regex, how its value is read, and the memory it makes.

The rules themselves are the table in `reading.extract.rule_table`; `reading.extract.patterns`
decides which of them a sentence pays for.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from beliefs.attributes import attribute_spec
from beliefs.records import MemoryType
from reading.extract import lexicon
from reading.extract.finding import Finding, Subject
from reading.extract.text import third_person
from reading.extract.values import bare, clip, clip_object, with_article

_I = r"(?i:\bI)"
_IM = r"(?i:\bI(?:'m|’m| am))"
_ADV = r"(?i:(?:\s+(?:just|really|also|always|still|now|currently|actually|usually|mostly|generally|definitely|absolutely|strongly|totally|honestly|recently|finally|personally))*)"
_PROPER = r"(?P<v>(?:[A-Z0-9][\w&.'’-]*)(?:\s+(?:[A-Z0-9][\w&.'’-]*|of|and|&|de|la|the|for|upon|on)){0,5})"
_PHRASE = r"(?P<v>[^.,!?;]{2,60})"
_EMPHASIS = re.compile(
    r"\b(?:always|never|really|strongly|definitely|absolutely|seriously|severely|must|hate|"
    r"can'?t stand|very|extremely|deathly|life-threatening|epipen|anaphyla\w*)\b|!",
    re.IGNORECASE,
)

ValueOf = Callable[[re.Match[str]], str | None]


def _group(name: str = "v", max_words: int = 6) -> ValueOf:
    return lambda match: clip(match.group(name), max_words)


def _object(max_words: int = 6) -> ValueOf:
    return lambda match: clip_object(match.group("v"), max_words)


def _lookup(table: dict[str, str]) -> ValueOf:
    return lambda match: table.get(match.group("v").lower())


def as_said(phrase: str) -> str:
    """A common-noun phrase in the case it was said: names and acronyms keep theirs ("data engineer in
    Porto", "SRE at AWS"); only a shouted phrase of several words is lowered ("DATA ENGINEER")."""
    words = phrase.split()
    return phrase.lower() if len(words) > 1 and phrase.isupper() else phrase


def _lower(max_words: int = 4) -> ValueOf:
    def value(match: re.Match[str]) -> str | None:
        cleaned = clip(match.group("v"), max_words)
        return as_said(cleaned) if cleaned else None

    return value


@dataclass(frozen=True, eq=False)
class Rule:
    """One way of saying one attribute. `template` None = the matched clause, in third person."""

    attribute: str
    pattern: re.Pattern[str]
    gates: tuple[str, ...]
    template: str | None
    importance: float
    value: ValueOf = _group()
    type: MemoryType | None = None

    def findings(self, sentence: str, subject: Subject) -> list[Finding]:
        """What this rule reads in a sentence (the caller has checked the gates)."""
        found = []
        for match in self.pattern.finditer(sentence):
            value = self.value(match)
            if not value:
                continue
            found.append(self._finding(match, value, subject))
        return found

    def _finding(self, match: re.Match[str], value: str, subject: Subject) -> Finding:
        if self.template is None:
            clause = sentence_clause(match)
            text = third_person(clause, subject.name, subject.possessive).rstrip(" ,;:") + "."
        else:
            text = self.template.format(
                S=subject.name,
                P=subject.possessive,
                v=value,
                a=with_article(value),
                b=bare(value),
                k=match.groupdict().get("k") or "",
                x=lexicon.ACCESSIBILITY_PHRASES.get(value, f"has {value}"),
            )
        spec = attribute_spec(self.attribute)
        memory_type = self.type or (spec.type if spec else MemoryType.FACT)
        importance = self.importance
        if _EMPHASIS.search(match.string):
            importance = min(1.0, importance + 0.1)
        return Finding(
            text=text, type=memory_type, importance=importance, attribute=self.attribute, value=value
        )


_CLAUSE_END = re.compile(
    r"[,;:!?()]|\s[-–—]\s|\.(?:\s|$)|\s+(?:but|because|which|though|although)\b|\s+and\s+(?:it|that|this)\b"
)


def sentence_clause(match: re.Match[str]) -> str:
    """From the start of the match to the end of its clause: the words that hold the claim."""
    text = match.string
    named = match.groupdict().get("n")
    start = match.end("n") if named else (match.end("v") if match.group("v") else match.end())
    end = _CLAUSE_END.search(text, start)
    return text[match.start() : end.start() if end else len(text)]


def _rule(attribute: str, pattern: str, gates: str, template: str | None, importance: float,
          value: ValueOf | None = None, memory_type: MemoryType | None = None) -> Rule:  # fmt: skip
    return Rule(attribute, re.compile(pattern), tuple(gates.split("|")), template, importance,
                value or _group(), memory_type)  # fmt: skip


