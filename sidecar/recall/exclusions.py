"""What a recall kept out, and why: reason codes, the final sweep, the discrepancies, the policy stated (pure).

Every candidate that does not reach the answer is listed in `suppressed` with a `why` (written where
the gate decided) and a `reason` code read from it (`reason_of`: similarity_floor, token_budget,
superseded, framing, live_intent, domain, sensitive, shown_as_context, carried_as_evidence, folded,
...; the same codes label the
`beliefstream_recall_suppressed` metric). `unaccounted` is the sweep after the gates: a
candidate that reached neither the answer nor a gate's list (a pinned row nothing selected, a quote a
filter left out) is listed with what happened to it, so nothing is dropped silently. Each id is listed
once (`first_reasons`): where two steps kept the same candidate out, the first one's reason stands. Index hits the
SQL store did not confirm are counted (`stale_candidates`), not listed: they may not be the caller's.
`notes` tells the assistant what to raise with the user: a live instruction overriding a stored
default, an item possibly replaced by a later statement, an important belief unconfirmed for long.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

#: First phrase found in a `why` → its reason code; anything else is `other`. The gates write their
#: whys with these words; the codes label metrics (`beliefstream_recall_suppressed`) and diagnostics.
REASONS: tuple[tuple[str, str], ...] = (
    ("framing:", "framing"),
    ("domain:", "domain"),
    ("live_intent", "live_intent"),
    ("live intent", "live_intent"),
    ("filter:", "filter"),
    ("not selected", "not_selected"),
    ("sensitive", "sensitive"),
    ("over the token budget", "token_budget"),
    ("over the limit", "limit"),
    ("profile block full", "profile_full"),
    ("conflicts with", "conflict"),
    ("quoted as context of", "shown_as_context"),
    ("carried as the evidence of", "carried_as_evidence"),
    ("folded into it", "folded"),
    ("context mismatch", "context"),
    ("outside topic", "topic"),
    ("similarity floor", "similarity_floor"),
    ("confidence below", "confidence_floor"),
    ("superseded", "superseded"),
    ("replaced this one", "superseded"),
    ("include_untrusted_evidence", "untrusted"),
    ("untrusted", "untrusted"),
    ("revoked", "not_current"),
    ("expired", "not_current"),
    ("no longer valid", "not_current"),
    ("state ", "not_current"),
)


@functools.lru_cache(maxsize=4096)
def reason_of(why: str) -> str:
    """The bounded reason code of a suppression's free-text `why` (remembered: the same texts recur)."""
    folded = why.casefold()
    return next((code for phrase, code in REASONS if phrase in folded), "other")


NOT_SELECTED = (
    "not selected: a profile fact, constraint or slot-mate read for every recall that no gate admitted here"
)
FILTERED = "filter: outside the request's since / until / types / topics / agent"


def unaccounted(
    candidates: Iterable[str], answered: Iterable[str], listed: Iterable[str], filtered: Iterable[str] = ()
) -> list[tuple[str, str]]:
    """(id, why) for each candidate neither in the answer nor listed by a gate; `filtered`: those a
    request filter took out before the gates."""
    seen = set(answered) | set(listed)
    gone = set(filtered)
    out: list[tuple[str, str]] = []
    for candidate in dict.fromkeys(candidates):
        if candidate not in seen:
            out.append((candidate, FILTERED if candidate in gone else NOT_SELECTED))
            seen.add(candidate)
    return out


def first_reasons(suppressed: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """(id, why) once per id, in order: the first reason given for a candidate stands (the gates run
    before the budget, the budget before the sweep), so the answer, its audit and the metrics count
    each candidate kept out once, as the contract's one `why` per entry says."""
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    for candidate, why in suppressed:
        if candidate not in seen:
            seen.add(candidate)
            out.append((candidate, why))
    return out


def live_intent_notes(
    suppressed: Sequence[tuple[str, str]], texts: Mapping[str, str]
) -> list[tuple[str, str, str]]:
    """(id, stored text, why) of each stored default a live instruction overrode this time."""
    return [(i, texts[i], w) for i, w in suppressed if reason_of(w) == "live_intent" and i in texts]


def exclusion_counts(suppressed: Iterable[tuple[str, str]]) -> dict[str, int]:
    """How many candidates each reason kept out."""
    return dict(sorted(Counter(reason_of(w) for _, w in suppressed).items()))
