"""The user withdraws what they said before, and what they withdraw (pure).

A withdrawal takes back the speaker's own words or drops what they announced, in the vocabulary of
doing so, whatever the subject: an order to let it go ("forget the boat", "ignore that last bit about
the dogs", "never mind the gym thing", "scratch it", "ditch the X", "cross swimming off the list"),
giving it up ("I've abandoned the vegan thing"), taking it back ("I take back what I said about
Dublin", "pretend I never said that", "I didn't mean it"), saying it was not serious ("I was joking about quitting", "only kidding about the tattoo"), refusing to be held
to it ("don't hold me to the race"), or saying it no longer stands ("that's not true anymore", "the
greyhound is off the table", "the cello's a thing of the past").

What is withdrawn is named after the cue ("about Dublin", "the boat") or, for a cue that follows its
subject ("the greyhound is off the table"), before it. `read_shape` makes a withdrawal a cessation
that names it; since the words of a withdrawal and of what it withdraws often differ ("forget the
boat" after "a little Wayfarer dinghy"), `beliefs.supersession` may link it by meaning alone, and
only possibly.
"""

from __future__ import annotations

import re

from reading.subject import value_terms

#: Cues whose object follows: the clause after them names what is withdrawn.
_OBJECT_AFTER = re.compile(
    r"(?i:(?:^|(?<=[,;:.!?])\s*|\b(?:so|just|please|oh|ok|okay|and)\s+)(?:please\s+|just\s+)?"
    r"(?P<cue>forget|ignore|disregard|never\s?mind|scratch|strike|ditch|scrap)\b(?!\s+(?:it|that)\s+(?:I|we)\b)"
    r"|\bI(?:'ll|’ll| will)?\s+(?P<cue2>take\s+(?:back|(?:it|that|this)\s+back))"
    r"|\b(?P<cue3>pretend\s+I\s+(?:never\s+said|didn['’]t\s+say))"
    r"|\bI\s+(?P<cue4>didn['’]t\s+mean\s+(?:it|that|what\s+I\s+said))"
    r"|\bI(?:'m|’m| am| was)\s+(?:only\s+|just\s+)?(?P<cue5>joking|kidding|messing(?:\s+about)?)(?=\s+(?:about|when|earlier|before)\b|\s*(?:[,.!;]|$))"
    r"|\b(?P<cue6>(?:do\s+not|don['’]t)\s+hold\s+me\s+to)\b"
    r"|\b(?P<cue7>cross)\s+(?=(?:[\w'’-]+\s+){1,4}off\b)"
    r"|\b(?:I|we)(?:'ve|’ve| have)?\s+(?:(?:just|finally|kind of|sort of)\s+)?(?P<cue8>abandoned|given\s+up\s+on|gave\s+up\s+on)\b)"
)
#: Cues whose subject comes first: "that's not true anymore", "the greyhound is off the table".
_SUBJECT_BEFORE = re.compile(
    r"(?i:(?:\bis|\bare|'s|’s|'re|’re)\s+(?P<cue>not\s+true\s+any\s?(?:more|longer)|no\s+longer\s+true|off\s+the\s+(?:table|cards)|"
    r"not\s+happening|a\s+no-go|a\s+non-starter|dead\s+in\s+the\s+water|a\s+thing\s+of\s+the\s+past|over(?=\s*(?:[,;.!]|$|now|for)))\b)"
)
#: Words that point at what was said without naming it, left out of what is withdrawn.
_POINTERS = re.compile(
    r"(?i:\b(?:what\s+I\s+(?:said|told\s+you|wrote|mentioned)|that\s+I\s+said|I\s+said|(?:that|the|my)\s+last\s+(?:bit|part|thing|message)|"
    r"the\s+(?:bit|part)|about|regarding|re|on|of|off|the\s+list|thing|bit|part|idea|stuff|plan|back|that|it|this)\b)"
)
_CLAUSE_END = re.compile(r"[,;:.!?]|\s(?:and|but|so|because|since|as|cos|coz)\s|\s-\s")


def withdrawals(sentence: str) -> list[tuple[str, tuple[str, ...]]]:
    """(cue, the terms of what is withdrawn) of each withdrawal the sentence makes; the terms may be
    () when it only points back ("scratch that", "ignore that last bit")."""
    found: list[tuple[str, tuple[str, ...]]] = []
    for match in _OBJECT_AFTER.finditer(sentence):
        cue = next(group for group in match.groups() if group).lower()
        rest = _CLAUSE_END.split(sentence[match.end() :])[0]
        found.append((re.sub(r"\s+", " ", cue), value_terms(_POINTERS.sub(" ", rest))))
    for match in _SUBJECT_BEFORE.finditer(sentence):
        before = _CLAUSE_END.split(sentence[: match.start()])[-1]
        found.append((re.sub(r"\s+", " ", match.group("cue").lower()), value_terms(_POINTERS.sub(" ", before))))
    return found
