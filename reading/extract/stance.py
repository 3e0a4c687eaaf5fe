"""A trait and what the speaker does about it, in one sentence: "I'm allergic to wool and avoid wool coats".

A stated condition, diet or trait often comes with the choice it leads to: "X and avoid Y",
"X, so I only buy Z", "X, avoiding Y", "I avoid Y because X". The halves are different memories
in the seed's table: what the speaker is or has is a fact (an allergy, a diet, a condition: safety
facts that recall keeps in their domain); what they like, avoid or choose is a preference. So each
half is read on its own by the slot rules, and the stance becomes a `preference` whose text is
the whole sentence, so that its reason and any pronoun pointing back ("can't be around them") stay
readable; only a safety fact that is already a memory of its own is not repeated in it. Both come
from the same turn and sentence (same source turn and evidence).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from beliefs.records import MemoryType, Polarity
from reading.extract.finding import Finding, Subject
from reading.extract.taste import of_the_moment, stance_importance, states_preference
from reading.extract.text import third_person
from reading.sensitivity import SAFETY_ATTRIBUTES

#: Where a sentence may turn from one clause to the next; which kind of turn it is decides how the
#: next clause is read (`so`, `and`: a clause of its own; `because`: the reason of the one before).
_TURN = re.compile(
    r"(?i:(?P<so>,\s+(?:and\s+)?so\s+(?:that\s+)?|\s+so\s+(?=I\b))|"
    r"(?P<and>,?\s+(?:and|but)\s+(?:also\s+|so\s+|therefore\s+|thus\s+)?)|"
    r"(?P<because>,?\s+(?:because|since|as)\s+(?=I\b))|"
    r"(?P<ing>,\s+(?=(?:avoiding|preferring|choosing|favou?ring|opting|sticking|refusing|steering|staying)\b)))"
)
_PARTICIPLES = {"avoiding": "avoid", "preferring": "prefer", "choosing": "choose", "favoring": "favor",
                "favouring": "favour", "opting": "opt", "sticking": "stick", "refusing": "refuse",
                "steering": "steer", "staying": "stay"}  # fmt: skip
_FIRST_PERSON = re.compile(r"^I\b")
#: Words that point back into the sentence: a stance holding one is only readable whole.
_BACK = re.compile(r"(?i:\b(?:it|them|they)\b)")
_SPEAKER = re.compile(r"\b(?:I|my|My)\b")
#: A later clause's "I am" in the third person: "..., so they are careful" (the plural takes the verb as said).
_THEY_AM = re.compile(r"^they(\s+(?:[a-z]+ly\s+|also\s+|still\s+)*)am\b")


@dataclass(frozen=True)
class _Part:
    said: str  # the words as said
    read: str  # the clause the readers see (its subject restored)
    kind: str  # lead, so, and, elided, because, ing; alone: a stance read without the rest
    joint: str  # what joined it to the part before


def _parts(clause: str) -> list[_Part]:
    """The clauses of a sentence at its turns; an 'and' that joins two nouns is not a turn."""
    pieces: list[tuple[str, str]] = [("lead", "")]
    cursor = 0
    bounds: list[tuple[int, int, str, str]] = []
    for match in _TURN.finditer(clause):
        bounds.append((match.start(), match.end(), match.lastgroup or "and", match.group(0)))
    texts: list[str] = []
    for start, end, kind, joint in bounds:
        texts.append(clause[cursor:start])
        pieces.append((kind, joint))
        cursor = end
    texts.append(clause[cursor:])
    parts: list[_Part] = []
    for (kind, joint), said in zip(pieces, texts, strict=True):
        said = said.strip()
        if kind == "and" and not _FIRST_PERSON.match(said):
            if states_preference("I " + said):
                parts.append(_Part(said, "I " + said, "elided", joint))
                continue
            if parts:  # "gluten-free and dairy-free", "cats and dogs": not a turn
                last = parts[-1]
                parts[-1] = _Part(last.said + joint + said, last.read + joint + said, last.kind, last.joint)
                continue
        if kind == "ing":
            word, _, rest = said.partition(" ")
            base = _PARTICIPLES.get(word.lower(), word)
            parts.append(_Part(said, f"I {base} {rest}".strip(), kind, joint))
            continue
        parts.append(_Part(said, said, kind, joint))
    return [part for part in parts if part.said]


def stance_findings(
    clause: str, subject: Subject, read: Callable[[str], list[Finding]]
) -> list[Finding] | None:
    """The facts of each half and the stance as one preference, or None when the sentence has no stance.

    `read` is the slot readers over one first-person clause."""
    parts = _parts(clause)
    if len(parts) < 2 or not _SPEAKER.search(parts[0].said) or of_the_moment(clause):
        return None  # the sentence has to start by saying something of the speaker
    stances = [part for part in parts if part.kind != "because" and states_preference(part.read)]
    if not stances:
        return None
    found: list[Finding] = []
    unread = False  # a stance the slot rules did not read as a preference of its own
    for part in parts:
        read_here = read(part.read)
        found.extend(read_here)
        unread |= part in stances and not any(f.type is MemoryType.PREFERENCE for f in read_here)
    if any(finding.polarity is Polarity.NEGATIVE for finding in found):
        return None  # a retraction reads the whole sentence
    if unread:
        said = _stance_alone(parts, stances, found) or parts
        text = _third_person(said, subject).rstrip(" ,.") + "."
        found.append(Finding(text=text, type=MemoryType.PREFERENCE, importance=stance_importance(clause)))
    return found


def _stance_alone(parts: list[_Part], stances: list[_Part], found: list[Finding]) -> list[_Part] | None:
    """The stance without the safety fact before it, when that fact is a memory of its own and the
    stance reads alone ("User avoids wool coats" beside "User is allergic to wool"): the fact is not
    said twice (recall surfaces every safety memory in its domain), and the shared evidence links them."""
    if not any(finding.attribute in SAFETY_ATTRIBUTES for finding in found) or len(stances) != 1:
        return None
    stance = stances[0]
    if stance is parts[0] or _BACK.search(stance.said):
        return None
    return [_Part(stance.said, stance.read, "alone", "")]


def _third_person(parts: list[_Part], subject: Subject) -> str:
    """The whole sentence in the third person; an elided subject stays elided ("and avoids wool")."""
    out = []
    for part in parts:
        if part.kind == "alone":
            said = third_person(part.read, subject.name, subject.possessive)
        elif part.kind == "elided":
            said = third_person(part.read, subject.name, subject.possessive)[len(subject.name) + 1 :]
        elif part.kind == "ing":
            said = part.said
        elif part.kind != "lead" and _FIRST_PERSON.match(part.said):
            said = _THEY_AM.sub(r"they\1are", "they" + part.said[1:], count=1)
            said = third_person(said, subject.name, subject.possessive)
            said = said[:1].lower() + said[1:]
        else:
            said = third_person(part.said, subject.name, subject.possessive)
            if part.kind != "lead":
                said = said[:1].lower() + said[1:]
        out.append(part.joint + said)
    return "".join(out)
