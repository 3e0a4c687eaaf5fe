"""Updates by subject: does a new statement make an earlier one (a quote or a belief) stale? Pure.

The slot rules of `beliefs.reconcile` need both claims on one (entity, attribute); most updates are
said otherwise ("Scratch that, the retreat is in Valencia now" after "We booked the Lisbon venue for
the retreat"). Here an update is read from two things, neither a list of attributes:

- the *shape* of the new statement (`Shape`, read by `reading.statement_shape`): it corrects ("I
  meant 9 km, not 14"), changes ("switched", "instead", "now") or ends ("anymore", "cancelled")
  something, and may name the value it replaces;
- the *subject* both statements share (`Statement`): their meaning (the embeddings the write path
  computes anyway) and their normalised terms (content words, names and numbers, read by
  `reading.subject`).

`judge` links each earlier statement of the same speaker to the new one: `firm` when the new one
names the earlier value it replaces, or an explicit update speaks closely of the same subject and
the two do not hold the same values; `possible` when the rules cannot decide
(a looser match, or an update only implied by "now"). A firm link supersedes; a possible one is
shown labelled, the newer first, both dated. Only a sincere, trusted statement of the user's own
makes links (the caller passes only those; `Shape` is None for a hypothetical, reported or asked one).
"""

from __future__ import annotations

from collections.abc import Sequence
from math import sqrt

from beliefs.another_name import another_name
from beliefs.pairings import repaired
from beliefs.statements import Link, Measure, Shape, Statement, UpdateKind

#: Closeness (cosine plus shared terms) from which an explicit update is firm about a statement.
FIRM_CLOSENESS = 0.62
#: A correction declares the earlier statement wrong in so many words: less subject evidence makes it firm.
FIRM_CORRECTION_CLOSENESS = 0.52
#: Closeness from which an explicit update may concern a statement: linked as possibly superseded.
POSSIBLE_CLOSENESS = 0.45
#: Closeness from which an implied update ("now", "these days") may concern a statement.
IMPLIED_CLOSENESS = 0.75
#: Below this cosine a named value is a coincidence ("90" of a rail pass and of a run), not the subject.
NAMED_FLOOR = 0.25
#: What each shared content term (not a value) adds to the cosine, for at most `SHARED_CAP` terms.
SHARED_TERM = 0.05
SHARED_CAP = 3
#: A term said in this share of the statements judged (and in at least `COMMON_MIN`) ties no subject.
COMMON_SHARE = 0.1
COMMON_MIN = 3
#: An update replaces what one subject held: only the earlier statements about as close as the closest
#: are linked (within `BEST_MARGIN`), at most `MAX_LINKS` of them.
BEST_MARGIN = 0.08
MAX_LINKS = 3
#: Slots held one value at a time (`reading.held_slots`): another value of one is the subject itself.
#: Any other slot (a place) links only possibly, and only from `NAMED_FLOOR`.
ONE_AT_A_TIME = frozenset({"employer"})
#: The family of the employer and activity slots, when a statement fills one and the other the other.
AFFILIATION = "affiliation"
#: How a link by a named value ranks among the others: above any closeness.
NAMED_RANK = 9.0
#: A statement said this soon (seconds) after the speaker's previous one, with nothing of theirs in
#: between, continues its subject: "It's actually at 3pm" after the party's time needs no shared word.
ADJACENT_S = 60 * 60
#: Closeness from which a statement giving another value of the same kind (a time for a time, a
#: number of the same thing) is about the same subject: possibly superseding; firm with an explicit cue.
SUBSTITUTION_CLOSENESS = 0.5
#: The same, for the statement right after (`ADJACENT_S`): an elliptical correction ("Make that 8")
#: shares little meaning with what it corrects, its place in the conversation says the subject.
ADJACENT_CLOSENESS = 0.35


def cosine(a: Sequence[float] | None, b: Sequence[float] | None) -> float:
    """Cosine of two vectors (0 when either is missing); the model's vectors are normalised already."""
    if a is None or b is None or len(a) == 0 or len(a) != len(b):
        return 0.0
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = sqrt(sum(x * x for x in a)) * sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def anchors(newer: Statement, older: Statement, common: frozenset[str] = frozenset()) -> frozenset[str]:
    """The terms that tie two statements to one subject: those they share that are not `common` (said
    in many of the statements judged: "great", a friend's name in every greeting)."""
    return (newer.terms & older.terms) - common


def closeness(newer: Statement, older: Statement, common: frozenset[str] = frozenset()) -> float:
    """How closely two statements speak of one subject: their cosine, raised by the specific terms
    they share."""
    shared = len(anchors(newer, older, common))
    return cosine(newer.vector, older.vector) + SHARED_TERM * min(shared, SHARED_CAP)


def common_terms(statements: Sequence[Statement]) -> frozenset[str]:
    """Terms said in more than `COMMON_SHARE` of the statements (at least `COMMON_MIN` of them)."""
    counts: dict[str, int] = {}
    for statement in statements:
        for term in statement.terms:
            counts[term] = counts.get(term, 0) + 1
    bar = max(COMMON_MIN, COMMON_SHARE * len(statements))
    return frozenset(term for term, n in counts.items() if n >= bar)


def names_replaced(shape: Shape, older: Statement) -> tuple[str, ...] | None:
    """The first value the shape says is over that `older` holds (all its terms), or None."""
    for value in shape.replaced:
        if value and all(term in older.terms for term in value):
            return value
    return None


def _family(slot: str) -> str:
    """Slots of one family: where the user works (`employer`) and what they do at a named place
    (`activity:<verb>`: "I run a sales team at X") both say where the user is affiliated."""
    return AFFILIATION if slot == "employer" or slot.startswith("activity:") else slot


def refilled_slot(newer: Statement, older: Statement) -> str | None:
    """The slot `newer` fills with another value than `older` did (`older` never naming the new value,
    `newer` not naming the old one in that slot), or None. Of two slots of one family but not one kind
    (an employer after an activity), the older's kind names it, as `AFFILIATION` when they differ."""
    for slot, old in older.slots:
        news = [value for kind, value in newer.slots if kind == slot]
        if not news:
            news = [value for kind, value in newer.slots if _family(kind) == _family(slot) != slot]
            slot = AFFILIATION if news else slot
        if not news or old in news:
            continue
        if any(all(term in older.terms for term in value) for value in news):
            continue  # the older statement already spoke of the new value: not a replacement
        return slot
    return None


def substituted(newer: Statement, older: Statement) -> str | None:
    """The kind of value `newer` gives another value of than `older` did (a time for a time, a number
    of the same thing for another), or None. The newer may repeat the old value beside the new one
    ("his size is 36. 34 was his old trainers"); it must bring one `older` never said."""
    for kind in sorted({m.kind for m in newer.measures}):
        old = [m for m in older.measures if m.kind == kind]
        new = [m for m in newer.measures if m.kind == kind and m.value not in {o.value for o in old}]
        if old and new and any(_same_unit(a, b) for a in old for b in new):
            return kind
    return None


def _typed_alike(newer: Statement, older: Statement, kind: str) -> bool:
    """The two give values of one type by the type itself: a time, a weekday, a month, or numbers of the
    same named unit (not a bare number: "6" of what?)."""
    if kind != "number":
        return True
    units = {m.unit for m in older.measures if m.kind == kind and m.unit}
    return any(m.unit in units for m in newer.measures if m.kind == kind)


def _typed_value(named: tuple[str, ...], newer: Statement, older: Statement) -> bool:
    """`named` (normalised terms) is a typed value both statements give alike: a time, a weekday, a
    month, a number of the same named thing ("Did I say 7:30?"; not a bare "not 90" after "90 km")."""
    said = "".join(named)
    return any(
        m.value.replace(":", "") == said and (m.kind != "number" or m.unit) and m in newer.measures for m in older.measures
    )


def _same_unit(a: Measure, b: Measure) -> bool:
    return a.unit is None or b.unit is None or a.unit == b.unit


def adjacent(newer: Statement, older: Statement, judged: Sequence[Statement]) -> bool:
    """`older` is the speaker's statement right before `newer` (the latest of `judged`, the earlier
    statements), said at most `ADJACENT_S` before it."""
    gap = (newer.said_at - older.said_at).total_seconds()
    return 0 <= gap <= ADJACENT_S and all(other.said_at <= older.said_at for other in judged)


def judge(newer: Statement, earlier: Sequence[Statement]) -> list[Link]:
    """The earlier statements `newer` makes stale (firm) or may make stale (possible), oldest first.

    Only statements said before `newer` by the same speaker are judged; `newer` without a shape links
    only possibly, and only by the kind of value it gives (another value of a one-at-a-time slot,
    another time, day or number of the same subject).
    """
    shape = newer.shape
    if not newer.may_update:
        return []
    judged = [
        older
        for older in earlier
        if older.id != newer.id and older.said_at <= newer.said_at and older.speaker == newer.speaker
    ]
    common = common_terms(judged)
    found: list[tuple[float, Link]] = []
    for older in judged:
        right_after = adjacent(newer, older, judged)
        link = _link(newer, older, shape, common, right_after) if shape is not None else None
        if link is None or not link.firm:
            restated = _restated(newer, older, shape, common, right_after)
            link = restated if restated is not None and (link is None or restated.firm) else link
        if link is not None:
            named = " names " in link.reason or ": another " in link.reason
            found.append((NAMED_RANK if named else closeness(newer, older, common), link))
    if not found:
        return []
    best = max(near for near, _ in found)
    kept = sorted(found, key=lambda pair: -pair[0])[:MAX_LINKS]
    links = [link for near, link in kept if near >= best - BEST_MARGIN]
    return sorted(links, key=lambda link: next((s.said_at, s.id) for s in judged if s.id == link.older_id))


def _link(newer: Statement, older: Statement, shape: Shape, common: frozenset[str], right_after: bool = False) -> Link | None:
    named = names_replaced(shape, older)
    # a value named as over is the subject when the two speak alike, or when it was said right after
    # ("Ugh, Friday, not Thursday." two minutes after the Thursday plan shares little meaning with it)
    if named is not None and (right_after or cosine(newer.vector, older.vector) >= NAMED_FLOOR):
        # firm unless the older statement said several things: another clause holds a value of its own
        # ("I read the Guardian, and I'm subscribed to the Economist too": only the Economist is over)
        partial = any(
            (clause & older.values) - newer.values and not clause & set(named) for clause in older.clauses
        )
        return Link(older.id, newer.id, not partial, newer.said_at, f"{shape.kind.value}: names {' '.join(named)!r} as over")
    if named is not None and shape.kind is UpdateKind.CORRECTION and _typed_value(named, newer, older):
        # "Did I say 7:30? It's 8:15": a correction naming a typed value the older gave (a time, a day,
        # a count of a thing) says its subject however little the two sound alike: possibly, newer first
        return Link(older.id, newer.id, False, newer.said_at, f"correction: names the {' '.join(named)!r} it gave")
    refilled = refilled_slot(newer, older)
    if refilled in ONE_AT_A_TIME:  # another value of a one-at-a-time slot: the subject, whatever the words
        firm = shape.explicit and shape.kind is not UpdateKind.CESSATION
        return Link(older.id, newer.id, firm, newer.said_at, f"{shape.kind.value}: another {refilled} than before")
    if refilled is not None and cosine(newer.vector, older.vector) >= NAMED_FLOOR:
        # another place: many things have one, so only where the two also speak alike, and only possibly
        return Link(older.id, newer.id, False, newer.said_at, f"{shape.kind.value}: another {refilled} than before")
    if shape.withdraws and named is None:
        # a withdrawal's subject is what it withdraws: "ignore the reviews, the cottage looks lovely" shares
        # "cottage" with the booking but withdraws only the reviews; "forget the boat" after "a little
        # Wayfarer dinghy" names it in other words: the closest in meaning, possibly (newer first, both dated)
        shared = anchors(newer, older, common)
        if shared and not shared & {term for value in shape.replaced for term in value}:
            return None
        if not shared and closeness(newer, older, common) >= POSSIBLE_CLOSENESS:
            return Link(older.id, newer.id, False, newer.said_at, "withdrawn: close in meaning")
    if not anchors(newer, older, common):
        return None  # meaning alone is no subject: a conversation's turns all sound alike
    near = closeness(newer, older, common)
    # firm only when a value is replaced: the older held one, the newer brings another
    replaces = bool(older.values - common) and bool(newer.values - older.values - common)
    # an update replaces a value: the two must not hold the same names and numbers (a correction often
    # repeats the old one: "42 is the neighbour's"); a cessation ends the thing itself, whatever it held
    repairs = shape.explicit and repaired(newer, older, common) is not None  # "traded them around"
    differs = shape.ends or older.values != newer.values or not older.values or repairs
    if not differs:
        return None
    firm_from = FIRM_CORRECTION_CLOSENESS if shape.kind is UpdateKind.CORRECTION else FIRM_CLOSENESS
    explicit = shape.explicit or bool(set(shape.renewed) & older.terms)  # "my new landlord" after "my landlord"
    if explicit and replaces and near >= firm_from:
        return Link(older.id, newer.id, True, newer.said_at, f"{shape.kind.value} of the same subject ({near:.2f})")
    threshold = POSSIBLE_CLOSENESS if explicit or shape.starts else IMPLIED_CLOSENESS
    if near >= threshold and (explicit or replaces):  # an implied update must at least bring a new value
        how = "explicit" if explicit else "a new start:" if shape.starts else "implied"
        return Link(older.id, newer.id, False, newer.said_at, f"{how} {shape.kind.value}, close subject ({near:.2f})")
    return None


def _restated(
    newer: Statement, older: Statement, shape: Shape | None, common: frozenset[str], right_after: bool
) -> Link | None:
    """A new value said of the same subject, with or without a cue: another value of a one-at-a-time
    slot ("I'm the only accountant at Oakvale" after "I'm an accountant at Pemberton"), or another value
    of the same kind (a time, a day, a count of the same thing) where the two share the subject (its
    terms, or the newer was said right after the older) and speak alike. Firm only with an
    explicit update cue; said plainly, possible: the newer is shown first, both dated. A plain denial of
    what the older affirmed, on the same subject, is possible too."""
    how = shape.kind.value if shape is not None else "restated"
    explicit = shape is not None and shape.explicit and shape.kind is not UpdateKind.CESSATION
    refilled = refilled_slot(newer, older)
    if refilled in ONE_AT_A_TIME:
        return Link(older.id, newer.id, explicit, newer.said_at, f"{how}: another {refilled} than before")
    # an employer after an activity (or the other way) said plainly, with no update's shape, may be a pastime
    # ("I shop at Lidl", "I volunteer for the Samaritans"): the family alone links only with a cue
    if refilled is not None and cosine(newer.vector, older.vector) >= NAMED_FLOOR and (refilled != AFFILIATION or shape is not None):
        return Link(older.id, newer.id, False, newer.said_at, f"{how}: another {refilled} than before")
    near = closeness(newer, older, common)
    shared = bool(anchors(newer, older, common) - {m.value for m in newer.measures | older.measures})
    if newer.denies and not older.denies and (shape is None or not shape.explicit) and shared and near >= POSSIBLE_CLOSENESS:
        # "the loft conversion isn't happening" after "we're planning a loft conversion": possibly over
        return Link(older.id, newer.id, False, newer.said_at, f"denial: says the same subject is not so ({near:.2f})")
    kind = substituted(newer, older)
    if kind is not None and newer.owners and older.owners and not newer.owners & older.owners:
        return None  # "my dad's birthday" after "my mum's birthday": two people's, both true
    # a statement that says it is an update ("nowadays I train at 6am" after "I work out at 12:30") needs
    # no shared word: its cue and a value of the same type, close in meaning, say the subject
    contrasted = kind is not None and shape is not None and near >= POSSIBLE_CLOSENESS and _typed_alike(newer, older, kind)
    if kind is None or not (
        (shared and near >= SUBSTITUTION_CLOSENESS) or (right_after and near >= ADJACENT_CLOSENESS) or contrasted
    ):
        swapped = another_name(newer, older, common, cosine(newer.vector, older.vector))
        if swapped is None:
            return None
        # "Dr Lindqvist is my dentist" after "My dentist is Dr Okafor": another name of the subject, possibly
        return Link(older.id, newer.id, False, newer.said_at, f"{how}: a new name {' '.join(swapped)!r} for the same subject ({near:.2f})")
    # possible, even with a cue: a typed value is weaker evidence of the subject than the value named as
    # over, and a firm link hides the older quote (a conversation's numbers and days are many)
    return Link(older.id, newer.id, False, newer.said_at, f"{how}: a new {kind} for the same subject ({near:.2f})")
