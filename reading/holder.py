"""Whose thing a statement speaks of, and whether it says it adds: what keeps two true statements apart (pure).

"My parents live in Dundee" after "I live in Stockbridge" gives another place, of another person: both
hold. "We also got a rescue greyhound, Pablo" after "We have a tabby cat called Miso" gives another name,
and says it adds. `beliefs.another_name` reads these two before linking a statement that gives another
name with no word of change.
"""

from __future__ import annotations

import re

SELF = "self"

#: Persons a clause can open on ("my sister", "our eldest"): a thing or a role ("my dentist") is none.
_PERSONS = frozenset(
    "mum mom mother dad father parent parents sister brother son daughter kid kids child children partner wife "
    "husband boyfriend girlfriend cousin nephew niece aunt uncle gran granny grandma grandad grandpa grandmother "
    "grandfather friend flatmate housemate neighbour neighbor boss colleague twin twins eldest youngest".split()
)
_OPENING = re.compile(
    r"^\W*(?:(?P<self>I|I'm|I’m|I've|I’ve|I'd|I’d|we|we're|we’re|we've|we’ve|User)\b|(?:my|our|User['’]s)\s+(?P<kin>[a-z]+)(?:['’]s\s+(?P<of>[a-z]+))?)",
    re.IGNORECASE,
)
#: Words that say a statement adds to what was said, not replaces it.
_ADDS = re.compile(r"(?i:\b(?:also|too|as well|another|additionally|a second|both)\b)")


def holder(text: str) -> str | None:
    """Who the statement's first clause is about: `SELF` (the speaker: "I live in ..."), a person it
    opens on ("My parents live in Dundee" -> "parents", "my partner's brother" -> "brother"), or None when it does not say (a name, a
    thing: "My dentist is ...", "Aoife's settled into ...")."""
    found = _OPENING.match(text)
    if found is None:
        return None
    if found.group("self"):
        return SELF
    kin = found.group("kin").lower()
    of = (found.group("of") or "").lower()
    if of in _PERSONS:  # "my partner's brother works at ...": the brother's
        return of
    return kin if kin in _PERSONS else None


def adds(text: str) -> bool:
    """The statement says it adds to what was said ("we also got", "bouldering too", "a second job")."""
    return _ADDS.search(text) is not None
