"""The profile rules of the structured table: the user's name and how to address them, pronouns,
language, time zone and accessibility needs (`reading.extract.rule_table` opens with them).

A name said in a self-introduction counts: "Hi, I'm Ada." or "I'm Ada, I live in Leith" (a greeting
opening the sentence, or another first-person clause right after) names the user as surely as "my name
is Ada", when the capitalised word is no language, nationality or faith ("Hi, I'm Italian" names no one).
"""

from __future__ import annotations

from reading.extract import lexicon
from reading.extract.rule import Rule, _lookup, _lower, _rule

_LANG = "|".join(sorted(lexicon.NATURAL_LANGUAGES, key=len, reverse=True))
#: Words after a greeting's "I'm" that are no name: languages, nationalities, states.
_NOT_A_NAME = (
    rf"(?!(?i:{_LANG}|british|american|irish|scottish|welsh|canadian|australian|indian|catholic|christian|jewish|"
    r"muslim|buddhist|hindu|sikh|atheist|vegan|vegetarian|back|new|here|fine|good|great|ok|okay|sorry|so|just|not|"
    r"also|still|currently|now)\b)"
)

PROFILE_RULES: tuple[Rule, ...] = (
    # "Hi, I'm Ada." (a greeting opening the sentence) or "I'm Ada, I live in ..." (a compound introduction)
    _rule(
        "name",
        rf"^\s*(?:(?i:(?:hi|hello|hey|hiya|howdy)(?:\s+there)?)\s*[!,.]*\s*(?:I'?m|I am|I’m)\s+{_NOT_A_NAME}(?P<v>[A-Z][a-z'’-]+)"
        rf"(?=\s*[,.!;]|\s+(?:and|here)\b|\s*$)|(?:I'?m|I am|I’m)\s+{_NOT_A_NAME}(?P<w>[A-Z][a-z'’-]+)(?=\s*,\s*I\b|\s+and\s+I\b))",
        "i'm|i am|im|i’m",
        "{P} name is {v}.",
        0.85,
        lambda m: m.group("v") or m.group("w"),
    ),
    _rule(
        "name",
        r"(?i:\bmy name(?:'s| is)|\bthe name'?s|\bI'?m called)\s+(?P<v>[A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+)?)",
        "name|called",
        "{P} name is {v}.",
        0.85,
    ),
    _rule(
        "preferred_name",
        r"(?<!n't )(?<!not )(?i:\bcall me|\bI go by|\bI prefer to be called)\s+(?P<v>[A-Z][a-z'’-]+)\b(?!\s+(?:on|by|at))",
        "call me|go by|called",
        "{S} prefers to be called {v}.",
        0.85,
    ),
    _rule(
        "pronouns",
        r"(?i:\bmy pronouns are|\bI use|\bI go by)\s+(?P<v>(?:she|he|they|xe|ze|it)/(?:her|him|them|hers|his|theirs|xem|zir|its)(?:/\w+)?)",
        "/",
        "{P} pronouns are {v}.",
        0.85,
        _lower(),
    ),
    _rule(
        "preferred_language",
        rf"(?i:\b(?:reply|respond|answer|talk|write|speak|communicate|chat)(?:\s+(?:to\s+)?me)?(?:\s+only)?\s+in\s+)(?P<v>(?i:{_LANG}))\b",
        " in ",
        "{S} prefers to communicate in {v}.",
        0.85,
        _lookup(lexicon.NATURAL_LANGUAGES),
    ),
    _rule(
        "preferred_language",
        rf"(?i:\bmy (?:native|first|mother|preferred) (?:language|tongue) is\s+|\bI prefer (?:speaking |to speak |responses in |answers in |replies in )?)(?P<v>(?i:{_LANG}))\b",
        "language|tongue|prefer",
        "{S} prefers to communicate in {v}.",
        0.85,
        _lookup(lexicon.NATURAL_LANGUAGES),
    ),
    _rule(
        "timezone",
        r"(?i:\bmy time ?zone is|\bI'?m (?:on|in)(?: the)?|\bI am (?:on|in)(?: the)?|\bI live in the)\s+(?P<v>UTC[+-]\d{1,2}|GMT[+-]\d{1,2}|[A-Z]{2,5}|(?i:pacific|eastern|central|mountain|atlantic)|[A-Z][a-z]+/[A-Z][A-Za-z_]+)(?i:\s+time(?:\s?zone)?)",
        "time|timezone",
        "{S} is in the {v} time zone.",
        0.8,
    ),
    _rule(
        "timezone",
        r"(?i:\bmy time ?zone is)\s+(?P<v>UTC[+-]\d{1,2}|GMT[+-]\d{1,2}|[A-Z]{2,5}|[A-Z][a-z]+/[A-Z][A-Za-z_]+)",
        "zone|timezone",
        "{S} is in the {v} time zone.",
        0.8,
    ),
    _rule(
        "accessibility",
        rf"(?i:\bI(?:'m| am| have| use)\s+(?:a\s+bit\s+|partially\s+|completely\s+|totally\s+)?)(?P<v>(?i:{lexicon.ACCESSIBILITY_PATTERN}))\b",
        "blind|colorblind|colourblind|deaf|hearing|impaired|dyslex|vision|screen reader|adhd|autistic",
        "{S} {x}.",
        0.9,
        lambda m: lexicon.ACCESSIBILITY.get(m.group("v").lower()),
    ),
)
