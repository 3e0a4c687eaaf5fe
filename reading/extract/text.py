"""Sentence spans and the first-to-third-person rewrite that turns a clause into a memory text.

Memories are read without the conversation, by another agent, so "I love painting" must become
"Caroline loves painting." The rewrite only touches the speaker's own pronouns and the verb
that follows "I"; everything else is kept as said.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_BOUNDARY = re.compile(r"[.!?]+[\"')\]]*(?=\s|$)|\n")
_ABBREVIATION_END = re.compile(r"(?:\b(?:Mr|Mrs|Ms|Dr|St|vs|etc|e\.g|i\.e|approx|Jr|Sr)|\b[A-Z])\.$")


def sentence_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each sentence, trimmed of surrounding whitespace; decimals and "Dr." stay whole."""
    left = 0
    for match in _BOUNDARY.finditer(text):
        right = match.end()
        if match.group(0) != "\n" and _ABBREVIATION_END.search(text[left:right]):
            continue
        yield from _trimmed(text, left, right)
        left = right
    yield from _trimmed(text, left, len(text))


def _trimmed(text: str, left: int, right: int) -> Iterator[tuple[int, int]]:
    while left < right and text[left].isspace():
        left += 1
    while right > left and text[right - 1].isspace():
        right -= 1
    if right > left:
        yield left, right


_ADVERBS = frozenset(
    "just really also always still finally recently actually never usually often sometimes even "
    "totally definitely absolutely mostly currently now already truly honestly seriously "
    "only rarely generally typically personally literally basically kinda sorta no longer not first then "
    "later soon sometimes mainly partly barely hardly almost nearly".split()
)
_UNCHANGED = frozenset(
    "can cannot could will would should shall may might must was were did had used ought "
    "didn't can't couldn't won't wouldn't shouldn't wasn't weren't hadn't mustn't "
    "went got took made saw came found gave knew left lost met paid ran read said sat sent "
    "spent stood thought told won wrote bought brought built caught chose drew drove ate fell "
    "felt flew forgot grew heard held kept led learnt began became broke swam sang taught threw "
    "understood woke wore set put cut hit let quit hurt shut slept sold shot rode rang rose "
    "fought sought meant lent dealt dug hung struck stuck spoke stole bit hid won froze "
    "gotta gonna wanna".split()
)
_PREFIXES = ("re", "un", "over", "under", "mis", "out", "up", "with", "be", "for")
#: Verbs whose present tense ends in -ed like a past tense ("I need" -> "she needs").
_ED_VERBS = frozenset("need feed breed bleed speed seed proceed succeed exceed heed weed shed embed wed".split())
_LY_VERBS = frozenset("apply reply rely fly supply comply imply multiply ally tally rally bully sully".split())
_IRREGULAR = {"am": "is", "have": "has", "do": "does", "go": "goes", "'m": " is", "'ve": " has",
              "don't": "doesn't", "haven't": "hasn't", "ain't": "isn't", "'ll": " will", "'d": " would"}  # fmt: skip
_ES_ENDINGS = ("s", "sh", "ch", "x", "z", "o")
_VOWELS = frozenset("aeiou")


def third_person_verb(verb: str) -> str:
    """The form of a verb that follows "she"/"Caroline" where it followed "I"."""
    lower = verb.lower()
    if lower in _IRREGULAR:
        return _IRREGULAR[lower]
    if lower in _UNCHANGED or (lower.endswith("ed") and lower not in _ED_VERBS) or not lower.isalpha():
        return verb
    if any(lower.startswith(prefix) and lower[len(prefix) :] in _UNCHANGED for prefix in _PREFIXES):
        return verb  # "rebuilt", "overslept", "undertook": a past tense too
    if lower.endswith("y") and len(lower) > 2 and lower[-2] not in _VOWELS:
        return verb[:-1] + "ies"
    if lower.endswith(_ES_ENDINGS):
        return verb + "es"
    return verb + "s"


_TOKEN = re.compile(
    r"\bI(?P<contraction>'m|'ve|'ll|'d|’m|’ve|’ll|’d)?\b|\b(?:my|mine|me|myself)\b", re.IGNORECASE
)
_PRONOUNS = {"my": "their", "mine": "theirs", "me": "them", "myself": "themselves"}
_WORD = re.compile(r"\s*([A-Za-z']+)")


def _conjugate_after(text: str, position: int) -> tuple[str, int]:
    """Conjugate the first verb after `position`, skipping adverbs; returns (rewritten, consumed)."""
    cursor = position
    pieces = []
    while True:
        match = _WORD.match(text, cursor)
        if not match:
            return "".join(pieces), cursor - position
        word = match.group(1)
        if word.lower() in _ADVERBS or (word.lower().endswith("ly") and word.lower() not in _LY_VERBS):
            pieces.append(match.group(0))
            cursor = match.end()
            continue
        lead = match.group(0)[: match.start(1) - match.start()]
        pieces.append(lead + third_person_verb(word))
        return "".join(pieces), match.end() - position


#: Where a clause (and so a subject) starts: the text's start, punctuation, or a joining word.
_CLAUSE_START = r"(?P<pre>^\s*|[,;:(]\s*|\b(?:and|but|so|because|when|while|since|that|then|as)\s+)"
#: "my wife and I" in subject position: said again as "<speaker> and their wife", the verb left plural.
_MINE_AND_I = re.compile(
    _CLAUSE_START + r"(?i:my)\s+(?P<them>[^,.;:!?]{1,40}?)\s+(?i:and)\s+(?:I|me|myself)\b(?!['’])"
)
#: "Tom and I", "I and my sister", "me and my brother": the speaker is one of a plural subject.
_NAME_AND_I = re.compile(_CLAUSE_START + r"(?P<them>[A-Z][\w’'-]+(?:\s+[A-Z][\w’'-]+)?)\s+and\s+I\b(?!['’])")
_I_AND = re.compile(_CLAUSE_START + r"(?:I|[Mm]e)(?=\s+and\s+(?:(?i:my|our)\s|[A-Z]))")
#: Stands for the speaker in a plural subject while the pronoun pass runs (no verb follows it to conjugate).
_CO_SUBJECT = "\x00"


def _plural_subjects(clause: str) -> str:
    """The speaker's part of a plural subject replaced by `_CO_SUBJECT`, their people made "their"."""
    clause = _MINE_AND_I.sub(lambda m: f"{m.group('pre')}{_CO_SUBJECT} and their {m.group('them')}", clause)
    clause = _NAME_AND_I.sub(lambda m: f"{m.group('pre')}{m.group('them')} and {_CO_SUBJECT}", clause)
    return _I_AND.sub(lambda m: f"{m.group('pre')}{_CO_SUBJECT}", clause)


def third_person(clause: str, subject: str, possessive: str) -> str:
    """Rewrite the speaker's first person: "I just adopted my puppy" -> "Max just adopted their puppy".

    A plural subject the speaker is part of keeps its plural verb: "My wife and I are moving" ->
    "Max and their wife are moving"."""
    clause = _plural_subjects(clause)
    out = []
    cursor = 0
    for match in _TOKEN.finditer(clause):
        out.append(clause[cursor : match.start()])
        token = match.group(0)
        lower = token.lower()
        if lower in _PRONOUNS:
            at_start = match.start() == 0 or clause[: match.start()].rstrip().endswith((".", "!", "?", ":"))
            if lower == "my":
                out.append(possessive if at_start else "their")
            else:
                out.append(_PRONOUNS[lower])
            cursor = match.end()
            continue
        if token != "I" and not token.startswith("I"):
            out.append(token)
            cursor = match.end()
            continue
        contraction = (match.group("contraction") or "").replace("’", "'")
        out.append(subject)
        if contraction:
            out.append(_IRREGULAR[contraction])
            cursor = match.end()
            continue
        rewritten, consumed = _conjugate_after(clause, match.end())
        out.append(rewritten)
        cursor = match.end() + consumed
    out.append(clause[cursor:])
    text = "".join(out).replace(_CO_SUBJECT, subject)
    return text[:1].upper() + text[1:]


_CONTRACTION = re.compile(r"\bI(?:'|’)(m|ve|ll)\b|’")
_EXPANDED = {"m": "I am", "ve": "I have", "ll": "I will"}


def expand_contractions(text: str) -> str:
    """ "I'm" -> "I am", "I've" -> "I have", curly apostrophes straight: fewer spellings for the rules."""
    if "'" not in text and "’" not in text:
        return text
    return _CONTRACTION.sub(lambda match: _EXPANDED[match.group(1)] if match.group(1) else "'", text)

