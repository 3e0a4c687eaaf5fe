"""What a statement speaks of, as terms two statements can share: content words, names and numbers (pure).

Normalised so that two phrasings of one subject meet: casefolded, possessives and plurals dropped
("Dara's wedding" and "the weddings" share `wedding`), numbers without separators or ordinal
endings ("1,450" = `1450`, "21st" = `21`), function words and the words every statement about
oneself carries ("I", "really", "now") left out. Values are what an update changes: names
(capitalised words not opening a sentence) and numbers.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from datetime import datetime

from beliefs.statements import Measure, Shape, Statement
from reading.held_slots import held_slots
from reading.holder import adds, holder

_WORD = re.compile(r"\d+(?:[,.]\d+)*[a-zA-Z]*|[^\W_][\w'’&-]*")
_NUMBER = re.compile(r"^\d[\d,.]*(?:st|nd|rd|th|k|km|kg|mb|gb|mbps)?$", re.IGNORECASE)
_CLAUSE = re.compile(r"[;:,.!?]\s+|\s+(?:and|but|while|whereas|since|because|so|now that)\s+|\s+[-–—]\s+", re.IGNORECASE)
_TITLE = re.compile(r"\b(?:Mr|Mrs|Ms|Dr|St|Prof)\.\s*$")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n\s*|[\"“(]\s*)$")

#: Words that carry no subject: function words, pronouns, auxiliaries, fillers, time adverbs, and the
#: cue words of updates themselves (an update and what it updates share the subject, not the cue).
STOPWORDS = frozenset(
    """
    a about above after again against all almost also although always am an and any anymore are aren't around as
    at back be because been before being below between both but by can can't cannot could couldn't did didn't do
    does doesn't doing don't done down during each either else even ever every few for from further get gets
    getting got had hadn't has hasn't have haven't having he her here hers herself him himself his how however i
    i'd i'll i'm i've if in into is isn't it it's its itself just last let let's like made make many may me might
    mine more most much must my myself never new no nor not now of off oh ok okay on once one only or other our
    ours ourselves out over own please quite rather really same see she should shouldn't since so some still such
    than that that's the their theirs them themselves then there there's these they they're thing things this
    those though through thus to too under until up upon us very was wasn't way we we'd we'll we're we've were
    weren't what what's when where which while who whom whose why will with won't would wouldn't yes yet you
    you'd you'll you're you've your yours yourself user actually anyway sorry well right sure kind sort bit lot lots
    today tomorrow yesterday week weeks month months year years day days time times instead anymore longer
    nowadays currently recently again already soon later earlier lately mean meant said say says saying think
    thought know going gonna want wanted need needs told tell guess maybe probably definitely honestly basically
    scratch switched switch swapped change changed changes moved move update updated turns turned ended settled
    decided stopped quit cancelled canceled wrong mistake correction typo misspoke mixed checked plan plans
    """.split()
)


@functools.lru_cache(maxsize=16384)
def _normal(word: str) -> str:
    """A word as a term (remembered: a vocabulary recurs across texts, recall reads many per request).
    A name (capitalised) is not stemmed; one whose singular is a function word ("Wells", "Means")
    keeps its plural: it names something."""
    name = word[:1].isupper()
    word = word.casefold().replace("’", "'")
    if word.endswith("'s"):
        word = word[:-2]
    word = word.strip("'-")
    if _NUMBER.match(word):
        return _number(word)
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        if name and word[:-1] in STOPWORDS and word not in STOPWORDS:
            return word
        word = word[:-1]
    return word if name else _stem(word)


def _stem(word: str) -> str:
    """A light stem, the same on both sides of a comparison: "freelancing", "freelanced" and
    "freelance" meet; "booked" and "booking" too."""
    for ending in ("ing", "ed"):
        if len(word) >= len(ending) + 5 and word.endswith(ending):
            word = word[: -len(ending)]
            break
    if len(word) > 4 and word.endswith("e"):
        word = word[:-1]
    return word


def _number(word: str) -> str:
    end = len(word.rstrip("abcdefghijklmnopqrstuvwxyz"))
    number = word[:end].rstrip(".,").replace(",", "")
    unit = word[end:]
    if unit in {"st", "nd", "rd", "th"}:
        unit = ""
    if unit == "k":
        return number + "000"
    return number + unit if unit else number


#: Number words are values too ("four espressos" then "one green tea").
NUMBER_WORDS = frozenset(
    "zero two three four five six seven eight nine ten eleven twelve fifteen twenty thirty forty fifty hundred "
    "thousand half dozen twice once".split()
)


def terms_of(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """(terms, values) of a text: normalised content words with its names and numbers, and those alone."""
    terms: set[str] = set()
    values: set[str] = set()
    for match in _WORD.finditer(text):
        raw = match.group(0)
        word = _normal(raw)
        if not word or word in STOPWORDS or (len(word) < 3 and not word[0].isdigit()):
            continue
        terms.add(word)
        opening = _opening_form(raw, text, match.start())
        if opening is not None:
            terms.add(opening)
        if word[0].isdigit() or word in NUMBER_WORDS or raw.casefold() in NUMBER_WORDS:
            values.add(word)
        elif raw[0].isupper() and raw.casefold() not in STOPWORDS and not _starts_sentence(text[: match.start()]):
            values.add(word)
    return frozenset(terms), frozenset(values)


#: The number words as terms (stemmed: "three" -> "thre"): values, but no names.
_NUMBER_TERMS = NUMBER_WORDS | frozenset(_normal(word) for word in NUMBER_WORDS)


def content_terms(text: str) -> frozenset[str]:
    """`terms_of(text)[0]`, without reading which are values: what comparing subjects needs."""
    terms: set[str] = set()
    for match in _WORD.finditer(text):
        word = _normal(match.group(0))
        if word and word not in STOPWORDS and (len(word) >= 3 or word[0].isdigit()):
            terms.add(word)
            opening = _opening_form(match.group(0), text, match.start())
            if opening is not None:
                terms.add(opening)
    return frozenset(terms)


def _opening_form(raw: str, text: str, start: int) -> str | None:
    """A capitalised word opening a sentence may be a common word ("Housewarming is the 19th" after
    "our housewarming"): its lower-case term too, when that differs and is a term at all."""
    if not raw[:1].isupper() or not _starts_sentence(text[max(0, start - 12) : start]):
        return None  # a window is enough to see a sentence's end and a title (and keeps recall cheap)
    lower = _normal(raw.lower())
    if lower == _normal(raw) or lower in STOPWORDS or (len(lower) < 3 and not lower[:1].isdigit()):
        return None
    return lower


def _starts_sentence(before: str) -> bool:
    return _SENTENCE_START.search(before) is not None and not _TITLE.search(before)


#: Whose thing a statement speaks of: the possessor before "'s" ("my mum's birthday", "Ellie's school").
_OWNER = re.compile(r"\b(?:(?:(?i:my|our|his|her|their)|User['’]s)\s+(?P<kin>[a-z]+)|(?P<name>[A-Z][a-z]+))['’]s\s+[a-z]")

_TIME = re.compile(r"(?i)\b(\d{1,2})(?::(\d{2}))?\s?([ap]\.?m\.?)(?![\w])|\b(\d{1,2}):(\d{2})\b")
#: Times of day said as words: noon and midnight are clock times, lunchtime a time of its own.
_DAY_TIME = re.compile(r"(?i)\b(noon|midday|lunch ?time|midnight)\b")
_DAY_TIME_VALUE = {"noon": "12pm", "midday": "12pm", "midnight": "12am", "lunchtime": "lunchtime", "lunch time": "lunchtime"}
_WEEKDAY = re.compile(r"(?i)\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b")
_MONTH = re.compile(r"(?i)\b(january|february|march|april|may|june|july|august|september|october|november|december)\b")
_DIGITS = re.compile(r"(?<![\w.,:])(\d[\d,]*(?:\.\d+)?)(?:st|nd|rd|th)?(?:-?([a-z]{1,5})\b)?")
_SPOKEN = re.compile(r"(?i)\b(" + "|".join(sorted(NUMBER_WORDS - {"once", "twice", "half", "dozen"})) + r"|one)\b")
_NEXT_WORD = re.compile(r"^\s+([A-Za-z][\w'-]*)")
#: Words between a number and the noun it counts ("six and a half hours", "39 a month").
_COUNT_FILLER = frozenset("a an and per half quarter of".split())
#: Words after a number that are no noun it counts ("34 was his size", "85 this year").
_NOT_UNIT = STOPWORDS - frozenset("day days week weeks month months year years time times".split())


def _unit(after: str, attached: str | None) -> str | None:
    """The noun a number counts: its attached unit ("5km"), else the next lowercase content word,
    past fillers ("six and a half hours" -> hour); None when a function word, a name or punctuation
    comes first."""
    if attached:
        return attached.lower()
    rest = after
    for _ in range(4):
        found = _NEXT_WORD.match(rest)
        if found is None:
            return None
        word = found.group(1)
        lowered = word.lower()
        if lowered in _COUNT_FILLER or lowered in NUMBER_WORDS:
            rest = rest[found.end() :]
            continue
        if word[0].isupper() or lowered in _NOT_UNIT:
            return None
        return lowered[:-1] if len(lowered) > 3 and lowered.endswith("s") and not lowered.endswith("ss") else lowered
    return None


def measures_of(text: str) -> frozenset[Measure]:
    """The typed values of a text: times ("3pm", "12:30", "noon", "lunchtime"), weekdays, months, and numbers with the noun
    they count ("6 people", "six and a half hours"); a spoken number only with its noun."""
    found: set[Measure] = set()
    taken: list[tuple[int, int]] = []
    for match in _TIME.finditer(text):
        if match.group(4):
            found.add(Measure("time", f"{int(match.group(4))}:{match.group(5)}"))
        else:
            minutes = f":{match.group(2)}" if match.group(2) else ""
            found.add(Measure("time", f"{int(match.group(1))}{minutes}{match.group(3).replace('.', '').lower()}"))
        taken.append(match.span())
    found |= {Measure("time", _DAY_TIME_VALUE[m.group(1).lower()]) for m in _DAY_TIME.finditer(text)}
    found |= {Measure("weekday", m.group(1).lower()) for m in _WEEKDAY.finditer(text)}
    found |= {Measure("month", m.group(1).lower()) for m in _MONTH.finditer(text) if m.group(1) != "may" or m.group(0)[0] == "M"}
    for match in _DIGITS.finditer(text):
        if any(start <= match.start() < end for start, end in taken):
            continue
        found.add(Measure("number", _number(match.group(1)), _unit(text[match.end() :], match.group(2))))
    for match in _SPOKEN.finditer(text):
        unit = _unit(text[match.end() :], None)
        if unit is not None:
            found.add(Measure("number", match.group(1).lower(), unit))
    return frozenset(found)


def value_terms(phrase: str) -> tuple[str, ...]:
    """The normalised terms of a value phrase ("9 km" -> ("9", "km")), function words left out."""
    found: list[str] = []
    for match in _WORD.finditer(phrase):
        word = _normal(match.group(0))
        if word and word not in STOPWORDS and word not in found:
            found.append(word)
    return tuple(found)


def statement_of(
    item_id: str,
    kind: str,
    text: str,
    said_at: datetime,
    speaker: str | None,
    vector: Sequence[float] | None,
    shape: Shape | None = None,
    memory_ids: Sequence[str] = (),
    denies: bool = False,
) -> Statement:
    """A `Statement` of an episode or belief for `beliefs.supersession.judge`."""
    terms, values = terms_of(text)
    clauses = tuple(terms_of(clause)[0] for clause in _CLAUSE.split(text) if clause.strip())
    slots = frozenset((slot, value) for slot, name in held_slots(text) if (value := value_terms(name)))
    owners = frozenset(o for m in _OWNER.finditer(text) if (o := _normal(m.group("kin") or m.group("name"))) not in STOPWORDS)
    measures = measures_of(text)
    typed = {m.value for m in measures}
    names = frozenset(v for v in values if not v[0].isdigit() and v not in typed and v not in _NUMBER_TERMS)
    return Statement(
        id=item_id,
        kind="memory" if kind == "memory" else "episode",
        said_at=said_at,
        speaker=speaker,
        terms=terms,
        values=values,
        vector=vector,
        shape=shape,
        memory_ids=tuple(memory_ids),
        clauses=clauses,
        slots=slots,
        measures=measures,
        names=names,
        denies=denies,
        owners=owners,
        holder=holder(text),
        adds=adds(text),
    )
