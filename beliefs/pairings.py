"""Two things trade their values: "I traded them around: the haircut is Thursday at 10 and physio is
Saturday morning" after "Physio on Thursday at 10 and a haircut on Saturday morning" (pure).

Both statements hold the same names, days and numbers, so no value is new; what changed is which
thing each goes with. Read from the clauses: a value both say is said beside one thing before (its
clause's other terms) and beside another thing the earlier statement also spoke of now, nothing of the
first left beside it. Only an explicit change is read so (`beliefs.supersession`): said plainly, the
same values in another order are as often the same facts again.
"""

from __future__ import annotations

from beliefs.statements import Statement


def _beside(statement: Statement, value: str, common: frozenset[str]) -> frozenset[str]:
    """The terms said in the clauses that say `value`, values and `common` terms left out."""
    found: set[str] = set()
    for clause in statement.clauses:
        if value in clause:
            found |= clause
    return frozenset(found) - statement.values - common


def repaired(newer: Statement, older: Statement, common: frozenset[str] = frozenset()) -> str | None:
    """A value both statements say that `newer` puts beside another thing the older spoke of, or None."""
    for value in sorted((newer.values & older.values) - common):
        before, now = _beside(older, value, common), _beside(newer, value, common)
        elsewhere = older.terms - before - older.values - common  # what the older said beside other values
        if before and now and not before & now and now & elsewhere:
            return value
    return None
