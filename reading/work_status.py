"""How the user works when it is no named organisation: for themselves, or not at all (pure).

The employer slot (`reading.held_slots`) holds one value at a time. Besides a named organisation it
can hold the user's status: working for themselves ("went freelance", "I'm self-employed", "I work
for myself", "my own boss", "set up on my own") or not working ("between jobs", "out of work",
"unemployed", "retired"). Said by the user of themselves, such a statement gives the slot a value of
its own, so it replaces an employer said before, and a named employer said later replaces it. The
words are the vocabulary of the concept (self-employment, unemployment, retirement), read with the
user as the subject: "my dad retired", "if I went freelance", "I'm thinking of going freelance" give
no status.

`additive` reads the other side: a job said as an addition ("I also tutor for X", "on top of the
restaurant", "a side gig at Y", "at X too") holds no one-at-a-time slot, the main job stays.
"""

from __future__ import annotations

import re

#: The slot values (one term each, never words a sentence says by chance).
SELF_EMPLOYED = "self-employed"
NOT_WORKING = "out-of-work"

#: The user as the subject, with the adverbs and auxiliaries between; or no subject at all, at the
#: start of a sentence or clause (diary style: "Went freelance in May").
_SUBJECT = (
    r"(?:\b(?:I|User)(?:'m|’m|'ve|’ve| am| have| has| is| was)?"
    r"(?:\s+(?:been|now|just|finally|officially|recently|also|gone|become|became|fully|currently|basically|properly|technically|still))*\s+"
    r"|(?:^|(?<=[.!?;:])\s+|(?<=,)\s+|\band\s+)(?:(?:just|finally|officially|recently|so)\s+)?)"
)
_SELF = (
    r"(?:(?:went|gone|turned|become|became)\s+(?:fully\s+|full-time\s+)?freelance|(?:an?\s+)?(?:full-time\s+)?freelanc(?:e|er|ing)\b"
    r"|self[- ]?employed|(?:work(?:s|ing)?|working)\s+for\s+(?:myself|themselves|himself|herself)|(?:my|their)\s+own\s+boss"
    r"|(?:set|setting|started|starting|struck|striking)\s+(?:up\s+|out\s+)?on\s+(?:my|their)\s+own"
    r"|(?:set\s+up|started|launched|opened|run|runs|running)\s+(?:my|their)\s+own\s+(?:\w+\s+)?(?:business|company|firm|practice|agency|consultancy))"
)
_NONE = (
    r"(?:between\s+jobs|out\s+of\s+work|unemployed|jobless|retired(?!\s+(?:the|my|our|a|an|his|her|their|it|them|that|this)\b)|signed\s+off\s+(?:work|sick)"
    r"|(?:an?\s+)?(?:stay-at-home|full-time)\s+(?:mum|mom|dad|parent|carer|caregiver))"
)
STATUS_PATTERNS = (
    (SELF_EMPLOYED, re.compile(rf"(?i:{_SUBJECT}){_SELF}", re.IGNORECASE)),
    (NOT_WORKING, re.compile(rf"(?i:{_SUBJECT}){_NONE}\b", re.IGNORECASE)),
)
#: A clause that does not assert it of the user now: a condition, a wish, a plan, a question.
_NOT_SAID = re.compile(
    r"(?i:\b(?:if|would|could|might|should|thinking|considering|wonder|maybe|whether|want|wanna|planning|plan|hope|hoping|"
    r"dream|someday|one day)\b|\?)"
)
_CLAUSE = re.compile(r"[.!?;]\s|,\s+(?:but|and|so)\s|\b(?:but|because|so)\s")


def statuses(text: str) -> list[tuple[str, int]]:
    """(status, where it is said) of each work status the user asserts of themselves."""
    found: list[tuple[str, int]] = []
    for value, pattern in STATUS_PATTERNS:
        for match in pattern.finditer(text):
            start = _CLAUSE.split(text[: match.start()])[-1]
            end = re.split(r"[.!;]", text[match.end() :])[0]
            if _NOT_SAID.search(start) or end.lstrip().startswith("?") or "?" in end[:60] and "." not in end[:60]:
                continue
            if value not in [v for v, _ in found]:
                found.append((value, match.start()))
    return found


_ADDITIVE = re.compile(
    r"(?i:\b(?:also|as well|on the side|on top of|alongside|in addition|besides|second job|another job|"
    r"side (?:job|gig|hustle|business|thing)|extra (?:shifts?|work|money|cash|income))\b"
    r"|\btoo\b(?=\s*(?:[.,!;)]|$)))"
)
_CLAUSE_BOUNDARY = re.compile(r"[.!?;:]\s|,\s|\s(?:and|but|while|whereas)\s")


def additive(text: str, start: int, end: int) -> bool:
    """The clause around text[start:end] says its job is in addition to another: a side job."""
    before = _CLAUSE_BOUNDARY.split(text[:start])[-1]
    after = _CLAUSE_BOUNDARY.split(text[end:])[0]
    return _ADDITIVE.search(f"{before} {text[start:end]} {after}") is not None
