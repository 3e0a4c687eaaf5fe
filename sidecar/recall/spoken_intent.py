"""A live instruction said only in the query's words ("Order my coffee, this time make it decaf").

A caller may not fill `live_intent`; the query's own sentence can still say that this one request
departs from the usual: an instruction carrying a one-off marker ("this time", "for once", "just this
once", "just for today", "instead", "for a change", "no sugar today"…). Its content words, less the request's verbs and
the marker (`instruction_terms`), are what the request changes; a stored default that speaks of one
of them (`LiveIntent.overrides`, `overrides_quote`) yields to it. A question asking what to do
("what should I order tonight?") states no instruction. Read only when the caller gave no
`live_intent`: what the caller read of the request wins. Pure.
"""

from __future__ import annotations

import re

from reading.extract.text import sentence_spans

_ONE_OFF = re.compile(
    r"(?i:\b(?:no|without|extra|less|more|double|half)\s+\w+\s+(?:today|tonight)\b|\bthis time\b|\bfor once\b|\b(?:just |only )?this once\b|\bjust for (?:today|tonight|this \w+)\b|"
    r"\bjust this (?:week|weekend|time|once|morning|evening|trip)\b|\binstead\b|\bfor a change\b|"
    r"\bfor this (?:trip|one|visit|order|booking)\b|\brather than (?:the|my) usual\b|\bunlike usual\b)"
)
#: A question asks what to do; it instructs nothing ("What should I get this time?").
_QUESTION = re.compile(r"(?i:^\s*(?:what|which|where|when|who|why|how|should|do|does|did|is|are|am)\b)")
#: The request's own verbs and the markers' words: they name no default.
REQUEST_WORDS = frozenset(
    "order book make get send plan set write put bring find give pick choose reserve call arrange schedule "
    "this time once instead change just today tonight week weekend trip usual rather unlike please got need want"
    .split()
)  # fmt: skip
#: How a stored turn says it is a default: a habit, a standing choice, an instruction for every time.
_DEFAULT = re.compile(
    r"(?i:\b(?:usually|always|normally|typically|generally|usual|regular|standing|go-to|default|every|"
    r"prefer|from now on)\b|^\s*(?:please\s+)?(?:send|give|call|wake|sign|book|make|get|address)\s+(?:me|my)\b|"
    r"\b(?:I|user)\s+(?:take|have|drink|eat|like)s?\s+(?:my|their|his|her)\s+\w+\s+(?:with|without|as)\b)"
)


def one_off_instruction(query: str) -> str | None:
    """The sentence of `query` that instructs a one-off departure from the usual, else None."""
    for left, right in sentence_spans(query or ""):
        sentence = query[left:right].strip()
        if _ONE_OFF.search(sentence) and not sentence.endswith("?") and not _QUESTION.match(sentence):
            return sentence
    return None


def says_a_default(text: str) -> bool:
    """Whether a stored turn states a habit or standing choice (what a one-off instruction overrides)."""
    return _DEFAULT.search(text) is not None
