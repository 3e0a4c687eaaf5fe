"""Quotations in a user's turn: whose words each double-quoted span is. Pure.

A quotation is someone else's voice when it is reported speech of another ("my landlord wrote: "I am
raising the rent"", 'Tom said "I'm quitting"') or text set apart to be shown: after a colon, opening
its sentence, or too long to be a phrase of the sentence around it. It is a *mention* when the user's
own sentence uses it as one of its parts: a title ('I loved "The Night Circus"'), a line the user
names, reads or repeats ('my favourite film line is "…"', 'I repeat "I am strong" on hills'), or words
the user reports of themselves ('I told him "I'm not coming"'). A mention leaves the turn in the
user's own voice (`reading.provenance`), and the rules extractor reads it as one opaque phrase
(`masked`): nothing inside the quotation marks becomes a claim about the user, whoever's words they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

QUOTED = re.compile(r"\"[^\"\n]{2,}\"|“[^”]{2,}”|«[^»]{2,}»|„[^“”]{2,}[“”]")
OPENING_QUOTES = '"“«„'
#: The most words a double-quoted span may hold and still read as a title rather than speech.
TITLE_WORDS = 6
#: The most words a quotation may hold and still be a phrase of the user's sentence (a line, a
#: motto, a lyric); a longer one is a text pasted in quotation marks.
MENTION_WORDS = 25
_FIRST_PERSON = re.compile(r"\bI\b|(?i:\b(?:me|my|mine|myself)\b)")
_SECOND_PERSON = re.compile(r"(?i:\b(?:you|your|yours|yourself|u)\b)")
_PERSON = re.compile(r"\bI\b|\bI(?:'|’)|(?i:\b(?:me|my|mine|myself|we|us|our|you|your|yours|yourself)\b)")
#: A verb of saying (and maybe whom, two words at most) right before a quotation: reported speech.
_SPEECH_BEFORE = re.compile(
    r"\b(?:say|says|said|tell|tells|told|ask|asks|asked|write|writes|wrote|text|texts|texted|reply|replies|"
    r"replied|yell|yells|yelled|shout|shouts|shouted|whisper|whispers|whispered|message|messaged|email|emailed|"
    r"answer|answered|go|goes|went|post|posts|posted|send|sends|sent|comment|commented|put it|puts it)\b"
    r"(?:\s+\w+){0,2}\s*[,:]?\s*$",
    re.IGNORECASE,
)
#: The speaker of that verb is the user: "I said", "I always tell him", "we texted".
_SAID_BY_THE_USER = re.compile(r"(?:^|\W)(?:I|we|We)\s+(?:\w+\s+){0,2}$")
_SENTENCE_START = re.compile(r"[.!?]\s+|\n")


@dataclass(frozen=True, slots=True)
class Quotation:
    """A double-quoted span (`start`, `end`, quotation marks included) and whose words it is."""

    start: int
    end: int
    mention: bool  # the user's own sentence uses it as a phrase (a title, a line it names or repeats)
    why: str

    @property
    def span(self) -> tuple[int, int]:
        return self.start, self.end


def quotations(text: str) -> tuple[Quotation, ...]:
    """Every double-quoted span of `text`, classified."""
    if not any(mark in text for mark in OPENING_QUOTES):
        return ()
    return tuple(_classify(text, match.start(), match.end()) for match in QUOTED.finditer(text))


def _classify(text: str, start: int, end: int) -> Quotation:
    inner = text[start + 1 : end - 1]
    near = text[max(0, start - 60) : start]
    said = _SPEECH_BEFORE.search(near)
    personal = bool(_FIRST_PERSON.search(inner) or _SECOND_PERSON.search(inner))
    shown = near.rstrip().endswith(":")
    if not personal and len(inner.split()) <= TITLE_WORDS and said is None and not shown:
        return Quotation(start, end, True, "a title")
    before = _sentence_before(text, start)
    if not re.search(r"\w", before):
        return Quotation(start, end, False, "a quotation opening its sentence")
    if shown:
        return Quotation(start, end, False, "a quotation shown after a colon")
    if len(inner.split()) > MENTION_WORDS:
        return Quotation(start, end, False, "a quoted text longer than a phrase")
    if said is not None and not _SAID_BY_THE_USER.search(near[: said.start()]):
        return Quotation(start, end, False, "reported speech of another")
    return Quotation(start, end, True, "a phrase of the user's own sentence")


def _sentence_before(text: str, start: int) -> str:
    """The words of the quotation's sentence before it (a quotation does not end a sentence it is in)."""
    head = text[:start]
    cut = 0
    for match in _SENTENCE_START.finditer(head):
        if not _inside_quotes(head, match.start()):
            cut = match.end()
    return head[cut:]


def _inside_quotes(text: str, at: int) -> bool:
    return any(m.start() < at < m.end() for m in QUOTED.finditer(text))


# -- the extractor's view: quotations as opaque phrases --------------------------------------------------

#: What a mention reads as while the rules run, and someone else's words (`own_words` drops the clause).
MENTION_MARK = "Quotation{n}x"
FOREIGN_MARK = "Foreignquotation{n}x"
_MARK = re.compile(r"\b(?:Foreign)?[Qq]uotation(\d+)x\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Masked:
    """A text with its quotations (but titles) replaced by one word each, and the way back."""

    text: str
    originals: tuple[str, ...]

    def restore(self, text: str) -> str:
        if not self.originals or "uotation" not in text:
            return text
        return _MARK.sub(lambda m: self.originals[int(m.group(1))], text)


def masked(text: str) -> Masked:
    """`text` with each quotation that is not a title read as one word: a mention as a phrase of the
    sentence, someone else's words as a mark `holds_foreign_words` finds (multi-sentence quotations stay
    one phrase, so no sentence of them is read as the user's)."""
    found = [q for q in quotations(text) if q.why != "a title" and _PERSON.search(text[q.start : q.end])]
    if not found:
        return Masked(text, ())
    parts, originals, at = [], [], 0
    for quote in found:
        parts.append(text[at : quote.start])
        mark = MENTION_MARK if quote.mention else FOREIGN_MARK
        parts.append(mark.format(n=len(originals)))
        originals.append(text[quote.start : quote.end])
        at = quote.end
    parts.append(text[at:])
    return Masked("".join(parts), tuple(originals))


def holds_foreign_words(sentence: str) -> bool:
    """The (masked) sentence carries someone else's quoted words."""
    return "oreignquotation" in sentence.lower()
