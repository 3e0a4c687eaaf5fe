"""Which structured rules a sentence pays for: each rule is gated by cheap words, so a sentence
only runs the regexes it could match (the rules are in `reading.extract.rule_table`).
"""

from __future__ import annotations

import re

from reading.extract.finding import Finding, Subject
from reading.extract.rule import Rule
from reading.extract.rule_table import RULES

_TOKEN = re.compile(r"[a-z]+")


def _key(word: str) -> str:
    return word[:4] if len(word) >= 4 else word


def _gate_index(rules: tuple[Rule, ...]) -> dict[str, tuple[Rule, ...]]:
    """The rules each gate key opens: a gate's longest word, cut to 4 letters (or "/").

    The index is deliberately generous (any word sharing a gate's first letters opens it); the
    rule's own regex decides. It turns ~35 regex runs per sentence into the few that can match.
    """
    opened: dict[str, list[Rule]] = {}
    for rule in rules:
        for gate in rule.gates:
            words = [word for word in _TOKEN.findall(gate) if len(word) > 1]
            if not words and gate.strip() != "/":
                continue  # "i'm": the sentence is read with contractions expanded
            key = _key(max(words, key=len)) if words else "/"
            opened.setdefault(key, [])
            if rule not in opened[key]:
                opened[key].append(rule)
    return {key: tuple(found) for key, found in opened.items()}


_OPENED = _gate_index(RULES)
_RULE_ORDER = {id(rule): index for index, rule in enumerate(RULES)}


def rule_findings(sentence: str, lower: str, subject: Subject) -> list[Finding]:
    """Every structured finding of the rule table in one sentence, in table order."""
    candidates: dict[int, Rule] = {}
    keys = {_key(word) for word in _TOKEN.findall(lower)}
    if "/" in lower:
        keys.add("/")
    for key in keys:
        for rule in _OPENED.get(key, ()):
            candidates[_RULE_ORDER[id(rule)]] = rule
    found: list[Finding] = []
    for index in sorted(candidates):
        found.extend(candidates[index].findings(sentence, subject))
    return found
