"""Another name where one stood: a later statement giving the subject of an earlier one another named
value, with no word of change (pure).

"Dr Lindqvist is my dentist at Riverside" after "My dentist is Dr Okafor at the Riverside practice";
"Aoife's settled into her Cork flat" after "My sister Aoife lives in Galway"; "The Hilton double-booked
us, so the offsite is at the Queens Hotel" after "The team offsite is at the Hilton". No cue says an
update, and no registry slot holds a dentist or a venue: what says it is the statement's structure.
One of its clauses speaks of the earlier statement's subject (a term they share: the dentist, Aoife,
the offsite), gives a name the earlier one never said, and does not say the earlier one's name beside
it (a clause that names both adds: "Galway and Cork"). The earlier name may come back in another clause,
as the reason for the change ("the Hilton double-booked us", "since Brandt moved away").

The rules cannot tell a replacement from a second thing of the same kind ("we also got a greyhound,
Pablo"), so such a link is only possible: the newer statement is shown first, both dated. What is said
to add is never linked ("also", "too", "as well", "another"), nor the thing of another person ("my
parents live in Dundee" after "I live in Stockbridge": another holder, by the person each clause opens on).
"""

from __future__ import annotations

from beliefs.statements import Statement

#: Cosine from which a clause giving another name of a shared term speaks of the earlier subject.
NAME_SWAP_COSINE = 0.5


def another_name(newer: Statement, older: Statement, common: frozenset[str], similarity: float) -> tuple[str, ...] | None:
    """The names one clause of `newer` gives in place of `older`'s (sorted), or None. `similarity`:
    the two statements' cosine."""
    if newer.adds or similarity < NAME_SWAP_COSINE:
        return None
    if not _same_holder(newer.holder, older.holder):
        return None  # two people's things: "my parents live in Dundee" after "I live in Stockbridge"
    if newer.owners and older.owners and not newer.owners & older.owners:
        return None
    old_names = older.names - common
    new_names = newer.names - older.terms - common
    for clause in newer.clauses:
        new = clause & new_names
        displaced = old_names - clause  # a name of the earlier statement this clause does not say beside it
        shared = (clause & older.terms) - common - displaced
        if not (new and displaced and shared):
            continue
        if not shared - old_names and displaced & newer.terms:
            # tied only by a name, the other name said again: one of several the earlier statement
            # listed ("Hana does gymnastics and Kenji is into Lego" after "My kids are Hana and Kenji")
            continue
        return tuple(sorted(new))
    return None


def _same_holder(first: str | None, second: str | None) -> bool:
    """Two holders (`reading.holder`: "self", a person, "friend:ellie") that may be one: either unsaid,
    or the same person, a name said beside only one of them ("my sister" and "my sister Aoife")."""
    if first is None or second is None or first == second:
        return True
    kin_first, _, name_first = first.partition(":")
    kin_second, _, name_second = second.partition(":")
    return kin_first == kin_second and not (name_first and name_second)
