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
_SELF_WORDS = frozenset("i i'm i've i'd we we're we've we'd user".split())
_OWNING = frozenset({"my", "our", "user's"})
_WORDS = re.compile(r"[A-Za-z][\w'’-]*")
#: Words that say a statement adds to what was said, not replaces it.
_ADDS = re.compile(r"(?i:\b(?:also|too|as well|another|additionally|a second|both)\b)")


def holder(text: str) -> str | None:
    """Who the statement's first clause is about: `SELF` (the speaker: "I live in ..."), a person it
    opens on ("My parents live in Dundee" -> "parents", "my partner's brother" -> "brother", "Mum's
    sister" -> "sister"), with the name said beside it ("my best friend Ellie" -> "friend:ellie"), or
    None when it does not say (a name alone, a thing: "My dentist is ...", "Aoife's settled into ...")."""
    words = _WORDS.findall(text[:80])[:5]
    if not words:
        return None
    if words[0].lower().replace("’", "'") in _SELF_WORDS:
        return SELF
    at = 1 if words[0].lower().replace("’", "'") in _OWNING else 0
    for index in range(at, min(at + 2, len(words))):  # the person, or one word before it ("my best friend")
        word = words[index].replace("’", "'")
        kin = word.lower().removesuffix("'s")
        if kin not in _PERSONS:
            continue
        after = words[index + 1] if index + 1 < len(words) else ""
        if word.lower().endswith("'s") and after.lower() in _PERSONS:
            return after.lower()  # "my partner's brother": the brother's
        if word.lower().endswith("'s"):
            return kin  # "my partner's car": the partner's
        return f"{kin}:{after.lower()}" if after[:1].isupper() else kin
    return None


def adds(text: str) -> bool:
    """The statement says it adds to what was said ("we also got", "bouldering too", "a second job")."""
    return _ADDS.search(text) is not None
