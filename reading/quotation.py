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

#: Double quotes, guillemets, and single quotes that open after no letter and close before none (an
#: apostrophe inside a word, "I'm", does not close them).
QUOTED = re.compile(
    r"\"[^\"\n]{2,}\"|“[^”]{2,}”|«[^»]{2,}»|„[^“”]{2,}[“”]|‘[^’\n]{2,}’(?!\w)|"
    r"(?<![\w'])'(?=\S)(?:[^'\n]|(?<=\w)'(?=\w)){2,}(?<=\S)'(?![\w'])"
)
OPENING_QUOTES = "\"“«„‘'"
_SINGLE = "‘'"
#: The most words a double-quoted span may hold and still read as a title rather than speech.
TITLE_WORDS = 6
#: The most words a quotation may hold and still be a phrase of the user's sentence (a line, a
#: motto, a lyric); a longer one is a text pasted in quotation marks.
MENTION_WORDS = 25
#: The speaker's own words for themselves (provenance places a claim by them too).
FIRST_PERSON = re.compile(r"\bI\b|(?i:\b(?:me|my|mine|myself)\b)")
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
#: Someone's words after their attribution and a colon, to the end of the line, in no quotation marks
#: ("My brother texted: I just got engaged!"); the user's own ("I told her: I'm not moving") are theirs.
_ATTRIBUTED = re.compile(
    r"(?im:(?:^|(?<=[.!?] ))(?P<who>[^\n.!?:\"“]{0,80}?)\b(?:wrote|writes|said|says|posted|replied|sent|sends|"
    r"texted|texts|messaged|emailed|told|tells|answered)(?:\s+(?:me|us|him|her|them|this|back))*\s*:[ \t]+"
    r"(?P<words>[^\s\"“«„‘'][^\n]*))"
)
_SPEAKER_IS_USER = re.compile(r"(?i:^\s*(?:(?:and|so|then|but|ok|well)\s+)?(?:I|we)\b(?:\s+\w+){0,2}\s*$)")


@dataclass(frozen=True, slots=True)
class Quotation:
    """A double-quoted span (`start`, `end`, quotation marks included) and whose words it is."""

    start: int
    end: int
    mention: bool  # the user's own sentence uses it as a phrase (a title, a line it names or repeats)
    why: str
    kind: str = "quoted"  # as `reading.provenance` names the region: "quoted", or "forwarded" (no marks)

    @property
    def span(self) -> tuple[int, int]:
        return self.start, self.end


def quotations(text: str) -> tuple[Quotation, ...]:
    """Every quoted span of `text`, classified, and the words after another's attribution, in order."""
    marked = (
        [
            _classify(text, m.start(), m.end())
            for m in QUOTED.finditer(text)
            if m.group()[0] not in _SINGLE
            or _PERSON.search(m.group())  # a single-quoted name is no one's words
        ]
        if any(mark in text for mark in OPENING_QUOTES)
        else []
    )
    if ":" in text:
        marked += [
            Quotation(
                m.start("words"), m.end("words"), False, "words after another's name and a colon", "forwarded"
            )
            for m in _ATTRIBUTED.finditer(text)
            if not _SPEAKER_IS_USER.match(m.group("who"))
            and not any(q.start < m.end("words") and m.start("words") < q.end for q in marked)
        ]
    return tuple(sorted(marked, key=lambda q: q.start))


def _classify(text: str, start: int, end: int) -> Quotation:
    inner = text[start + 1 : end - 1]
    near = text[max(0, start - 60) : start]
    said = _SPEECH_BEFORE.search(near)
    personal = bool(FIRST_PERSON.search(inner) or _SECOND_PERSON.search(inner))
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
    found = [
        q for i, q in enumerate(found) if not any(p.start < q.end and q.start < p.end for p in found[:i])
    ]
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
