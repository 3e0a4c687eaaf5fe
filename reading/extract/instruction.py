"""Standing instructions about how the assistant should answer: "from now on, reply in bullet points".

They are the user's preferences about the conversation itself, kept in the profile so they apply
to every later turn: the shape of an answer (`response_format`), its length and tone
(`communication_style`), units (`measurement_units`). An instruction with no such slot ("always
show me the command before running it") is kept as a free-text preference.
"""

from __future__ import annotations

import re

from beliefs.records import MemoryType
from reading.extract import lexicon
from reading.extract.finding import Finding, Subject
from reading.extract.text import third_person_verb
from reading.gates import contains_any

_FORMATS = (
    (re.compile(r"(?i:\bbullet(?:ed)?(?:\s+points?|\s+lists?)?\b|\bbullets\b)"), "bullet points"),
    (re.compile(r"(?i:\bnumbered\s+(?:lists?|steps?|points?)\b)"), "numbered list"),
    (re.compile(r"(?i:\btables\b|\btabular\b|\b(?:a|in a) table(?: format)?\b)"), "tables"),
    (re.compile(r"(?i:\bplain text\b|\bno markdown\b|\bwithout markdown\b)"), "plain text"),
    (re.compile(r"(?i:\bmarkdown\b)"), "markdown"),
    (re.compile(r"(?i:\b(?:code only|just (?:the )?code|only (?:the )?code)\b)"), "code only"),
)
_STYLES = (
    (re.compile(r"(?i:\b(?:short|shorter|brief|briefer|concise|succinct|terse|to the point)\b)"), "concise"),
    (re.compile(r"(?i:\b(?:detailed|in-depth|thorough|longer|more detail|step-by-step)\b)"), "detailed"),
    (re.compile(r"(?i:\b(?:casual|informal|relaxed)\b)"), "casual"),
    (re.compile(r"(?i:\bformal\b)"), "formal"),
    (re.compile(r"(?i:\b(?:blunt|direct|frank)\b)"), "direct"),
)
_UNITS = (
    (re.compile(r"(?i:\b(?:metric|celsius|kilomet(?:er|re)s?|kilograms?|centimet(?:er|re)s?)\b)"), "metric"),
    (re.compile(r"(?i:\b(?:imperial|fahrenheit|miles|pounds|feet|inches)\b)"), "imperial"),
)
#: The sentence talks about the assistant's answers.
_ANSWERS = re.compile(
    r"(?i:\b(?:answers?|responses?|replies|reply|respond|answer|explanations?|comparisons?|summaries|output|"
    r"units|temperatures?|distances?|weights?)\b)"
)
#: It is said as a wish or an instruction, not as a description.
_ADDRESSED = re.compile(
    r"(?i:^(?:please\s+|always\s+|just\s+|today,?\s+|from now on,?\s+|going forward,?\s+|in future,?\s+|for today,?\s+|"
    r"right now,?\s+|for now,?\s+|(?:just\s+)?for now,?\s+)*(?:reply|respond|answer|write|format|use|keep|give|make|be|"
    r"talk|put|send|show|list|stick|switch|do)\b|\bplease\b|\bfrom now on\b|\bgoing forward\b|\bin (?:the )?future\b|"
    r"\bcan you\b|\bcould you\b|\bwould you\b|\bI(?:'d| would)? (?:want|like|prefer|need)\b|\bI'?d like\b|\balways\b|"
    r"\bwhenever you\b|\bkeep it\b)"
)
_STANDING = re.compile(
    r"(?i:\bfrom now on\b|\bgoing forward\b|\bin (?:the )?future(?: conversations)?\b|\balways\b|\bevery time\b|"
    r"\bwhenever you\b|\bwhen you\b)"
)
_IMPERATIVE = re.compile(
    r"(?i:^(?:please\s+|always\s+|just\s+|today,?\s+|from now on,?\s+|going forward,?\s+|in future,?\s+|for today,?\s+|"
    r"right now,?\s+|for now,?\s+)*(?P<verb>reply|respond|answer|"
    r"write|format|use|keep|give|make|be|talk|put|send|show|list|stick|tell|ask|remind|check|include|add|explain|cite|"
    r"mention|start|end|number|label|suggest|recommend|offer|book|pick|choose|prioriti[sz]e|default\s+to)\b)"
)
_LANGUAGE_REQUEST = re.compile(rf"(?i:\bin\s+(?:{'|'.join(lexicon.NATURAL_LANGUAGES)})\b)")
#: A one-off request about the thing at hand ("make this shorter"), not a standing wish.
_DEICTIC = re.compile(r"(?i:\b(?:this|that|it|these|those|the following|above|below|here)\b)")
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|'[^']{3,}'")
_KEEP_IT = re.compile(r"(?i:\bkeep it\b)")  # "keep it short" is about every answer, not a thing at hand
_WHEN_YOU = re.compile(r"(?i:^(?:whenever|when|every time|each time|if)\s+you\s+[^,]{3,60},\s*)")
_YOU = re.compile(r"(?i:\byou\s+(\w+))")
_ME = re.compile(r"(?i:\b(?:me|myself)\b)")
_MY = re.compile(r"(?i:\bmy\b)")


def _first(table: tuple[tuple[re.Pattern[str], str], ...], sentence: str) -> str | None:
    return next((value for pattern, value in table if pattern.search(sentence)), None)


#: Every finding needs a format, style or unit word, or a standing marker: one of these.
_WORDS = ("bullet", "numbered", "table", "tabular", "plain text", "markdown", "code", "short", "brief", "concise",
          "succinct", "terse", "to the point", "detail", "in-depth", "thorough", "longer", "step-by-step", "casual",
          "informal", "relaxed", "formal", "blunt", "direct", "frank", "metric", "celsius", "kilomet", "kilogram",
          "centimet", "imperial", "fahrenheit", "miles", "pounds", "feet", "inches", "from now on", "going forward",
          "future", "always", "every time", "whenever you", "when you")  # fmt: skip


def instruction_findings(sentence: str, subject: Subject) -> list[Finding]:
    """The standing instruction a sentence gives the assistant, if it gives one."""
    if not contains_any(sentence, _WORDS):
        return []
    if not _ADDRESSED.search(sentence) or _LANGUAGE_REQUEST.search(sentence):
        return []
    said = _QUOTED.sub(" ", sentence)  # words inside quotes are what to say, not how to answer
    if _DEICTIC.search(_KEEP_IT.sub("", said)) and not _STANDING.search(said):
        return []
    found: list[Finding] = []
    answers = _ANSWERS.search(sentence) is not None
    fmt = _first(_FORMATS, sentence)
    if fmt and (answers or _IMPERATIVE.search(sentence)):
        found.append(
            _slot("response_format", fmt, f"{subject.name} wants answers formatted as {fmt}.", sentence)
        )
    style = _first(_STYLES, sentence)
    if style and (answers or _KEEP_IT.search(sentence)) and not fmt:
        found.append(
            _slot("communication_style", style, f"{subject.name} prefers {style} answers.", sentence)
        )
    units = _first(_UNITS, sentence)
    if units and (answers or _IMPERATIVE.search(sentence) or _STANDING.search(sentence)):
        found.append(_slot("measurement_units", units, f"{subject.name} wants {units} units.", sentence))
    if found:
        return found
    when = _WHEN_YOU.match(sentence)
    if (
        when
        and (imperative := _IMPERATIVE.match(sentence[when.end() :]))
        and not sentence.rstrip().endswith("?")
    ):
        condition = _as_reported(sentence[: when.end()].rstrip(" ,")).rstrip(".")
        text = f"{subject.name} wants the assistant to {_as_reported(sentence[when.end() :]).rstrip('.')} {condition}."
        return [Finding(text=text, type=MemoryType.PREFERENCE, importance=0.8)]
    imperative = _IMPERATIVE.search(sentence)
    if imperative and _STANDING.search(said) and not sentence.rstrip().endswith("?"):
        text = f"{subject.name} wants the assistant to {_as_reported(sentence[imperative.start() :])}"
        return [Finding(text=text, type=MemoryType.PREFERENCE, importance=0.8)]
    return []


def answer_slots(text: str) -> frozenset[str]:
    """The answer slots whose words `text` uses ("tone: casual, jokey" → communication_style): how a live
    instruction is matched to the standing one it overrides, with the vocabulary that wrote it."""
    tables = (("response_format", _FORMATS), ("communication_style", _STYLES), ("measurement_units", _UNITS))
    return frozenset(slot for slot, table in tables if _first(table, text))


def _slot(attribute: str, value: str, text: str, sentence: str) -> Finding:
    importance = 0.9 if _STANDING.search(sentence) else 0.85
    return Finding(text=text, type=MemoryType.PREFERENCE, importance=importance, attribute=attribute, value=value,
                   profile=True)  # fmt: skip


def _as_reported(clause: str) -> str:
    """ "Always show me the command before you run it." -> "always show them the command before it runs it."."""
    clause = re.sub(r"(?i:^please\s+)", "", clause.strip()).rstrip(" .!")
    clause = _YOU.sub(lambda match: "it " + third_person_verb(match.group(1)), clause)
    clause = re.sub(r"(?i:\byour\b)", "its", clause)
    clause = _ME.sub("them", clause)
    clause = _MY.sub("their", clause)
    return clause[:1].lower() + clause[1:] + "."
