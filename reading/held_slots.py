"""Which slot a statement gives a value of: the organisation the user works for, a named place (pure).

Read from the structure of the sentence, not from its subject words: a named organisation (capitalised
words) after a preposition of membership, governed by work ("work in QA at X", "employed by X"), by a
role the speaker holds ("I'm a paralegal at X", "User is a project manager at X"), by a start ("joined
X", "onboarding at X", "first week at X", "poached by X", "offer from X") or by "I'm with X now". Two
statements that give the slot different values speak of one subject even when they share no word:
"First week at Pinecrest Veterinary done!" after "I'm a vet nurse at Greenpaw Clinic".

A *place* is a named location the user's own thing is at ("my office is in the Westgate building",
"I live in Phoenix") or is moved to ("the company relocated us to the Canal Street campus"). Many
things have places, so another place is a subject only where the two also speak alike (the caller's
cosine floor) and never more than a possible link.
"""

from __future__ import annotations

import re

EMPLOYER = "employer"
PLACE = "place"

_NAME = r"(?P<name>(?:[A-Z][\w'’.-]*|&)(?:\s+(?:(?!I\b)[A-Z][\w'’.-]*|&|of|and)(?=\s+(?!I\b)[A-Z&]|\b))*(?:\s+(?!I\b)[A-Z][\w'’.-]*)?)"
_SELF = r"(?:I(?:'m|’m| am| was|'ve been|’ve been| have been)|User (?:is|was|has been))"
_EMPLOYER_PATTERNS = (
    # work governs it: "work in QA at X", "working for X", "employed by X", "a job at X"
    re.compile(
        rf"\b(?i:work(?:s|ed|ing)?|employed|job|role|position|post|internship|interning|contract(?:ed|ing)?)\b"
        rf"[^.!?;]{{0,30}}?\b(?i:at|for|with|by)\s+(?:the\s+)?{_NAME}"
    ),
    # a role the speaker holds there: "I'm a paralegal at X", "User is a project manager at X"
    re.compile(rf"\b{_SELF}\s+(?:(?i:now|currently|still|officially)\s+)?(?i:an?|the)\s+[a-zA-Z][\w\s-]{{0,30}}?\s+(?i:at|for|with)\s+(?:the\s+)?{_NAME}"),
    # a start there: "joined X", "onboarding at X", "first week at X", "poached by X", "an offer from X"
    re.compile(
        rf"\b(?i:joined|joining|onboard(?:ed|ing)?\s+(?:at|with)|hired\s+by|poached\s+by|headhunted\s+by|recruited\s+by|"
        rf"offer\s+from|first\s+(?:day|week|month|shift)\s+(?:at|with)|started\s+(?:at|with)|starting\s+(?:at|with))\s+"
        rf"(?:the\s+)?{_NAME}"
    ),
    # "I'm with X now", "I'm at X these days": a present affiliation
    re.compile(rf"\b(?:I(?:'m|’m| am)|User is)\s+(?i:now\s+)?(?i:with|at)\s+{_NAME}(?=[^.!?]{{0,20}}?\b(?i:now|these days|nowadays)\b)"),
)


_PLACE_PATTERNS = (
    # where it is: "my office is in X", "I live in X", "we're based at X"
    re.compile(
        rf"(?:\b(?i:is|are|was|were)|'s|’s|'re|’re|'m|’m)\s+(?i:(?:now\s+)?(?:based|located)\s+)?(?i:in|at)\s+(?:the\s+)?{_NAME}"
    ),
    re.compile(rf"\b(?i:live[sd]?|living|based|located)\s+(?i:in|at)\s+(?:the\s+)?{_NAME}"),
    # where it went: "relocated us to X", "we moved to X", "transferred me to X"
    re.compile(rf"\b(?i:moved|moving|relocat(?:ed|ing)|transferr?(?:ed|ing))\b[^.!?;]{{0,25}}?\b(?i:to|into)\s+(?:the\s+)?{_NAME}"),
)
#: Someone else is the subject of the clause: "my sister works at X", "Tom's firm hired Dana from X".
_OTHER = re.compile(r"(?i:\b(?:he|she|they|it|we|you|his|her|their|its|our|your|my\s+(?!new\b|current\b|first\b)\w+|\w+'s)\b)")
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I’m|I've|I’ve|I'd|User)\b")


#: Words that may open a clause without being its subject: "Got poached by X", "Just joined X".
_OPENERS = frozenset("just got have has had been finally recently officially so also now then today yesterday well oh my new current a an the accepted took".split())


_OTHER_PLACE = re.compile(r"(?i:\b(?:he|she|they|his|her|their|your|you|(?!user)\w+'s)\b)")
_OWN_THING = re.compile(r"(?i:\b(?:my|our|we|us|me|I|I'm|I’m|User|User's|we're|we’re)\b)")
_MOVER = re.compile(r"\b(?:[Ww]e|us|me|I|I'm|I’m|User|[Ww]e're|[Ww]e’re)\b(?!\s+\w+\s+(?:lives?|moved))")


def _own(before: str, places: re.Pattern[str] | None = None) -> bool:
    """The user's own: the clause before the slot says "I" (or "User") and no one else after it, or it
    has no subject at all ("Got poached by X", "First week at X")."""
    clause = re.split(r"[.!?;:,]\s|\b(?:and|but|while|whereas)\b", before)[-1]
    if places is not None:  # my office, our flat, the company relocated us: the user's own, no one else's
        return bool(places.search(clause)) and not _OTHER_PLACE.search(clause)
    mine = list(_FIRST_PERSON.finditer(clause))
    if mine:
        return not _OTHER.search(clause[mine[-1].end() :])
    return all(word.casefold() in _OPENERS or word.casefold().endswith("ly") for word in clause.split())


def held_slots(text: str) -> list[tuple[str, str]]:
    """(slot, value as said) the text gives: ("employer", "Hartwell Legal") for "I'm with Hartwell Legal now"."""
    found: list[tuple[str, str]] = []
    for pattern in _EMPLOYER_PATTERNS:
        for match in pattern.finditer(text):
            if not _own(text[: match.start()]):
                continue
            if (EMPLOYER, match.group("name")) not in found:
                found.append((EMPLOYER, match.group("name")))
    for i, pattern in enumerate(_PLACE_PATTERNS):
        for match in pattern.finditer(text):
            # "my office is in X" is the user's own thing; "lives in X", "moved to X" need the user as subject
            if _own(text[: match.start("name")], places=_OWN_THING if i == 0 else _MOVER) and (PLACE, match.group("name")) not in found:
                found.append((PLACE, match.group("name")))
    return found
