"""Claim normalisation: one spelling per attribute and value, polarity in the claim, decisions by matter.

Reconcile compares slots (entity, attribute, context) and values exactly, so every claim, whichever
extractor made it (the rules, or an LLM that invents attribute names), passes through here first:

- attributes to canonical names: case and separators folded ("Preferred-DB" → `preferred_database`),
  synonyms mapped (`favorite_x` → `preferred_x`, `db_choice` → `preferred_database`, `employer` →
  `works_at`), a negating prefix folded into polarity (`does_not_use` → `uses_tool`, negative);
- `dislikes X` is `likes X` with negative polarity, so "loves jazz" and "doesn't like jazz anymore"
  fight over one slot value;
- values trimmed, articles dropped, aliases of well-known names spelt one way ("postgres" →
  "PostgreSQL"), simple units written one way ("5 kilometers" → "5 km"); case is kept as said
  (reconcile and recall compare values casefolded);
- a decision is keyed by what it decides: entity = the matter ("parser"), attribute `decision`.

Pure functions of values; no I/O.
"""

from __future__ import annotations

import re

from beliefs.records import Claim, Polarity
from reading.names import CANONICAL_NAMES, MATTER_OF

#: Entities that mean "the person speaking"; a decision about one of them names no matter.
SPEAKER_ENTITIES = frozenset({"user", "i", "me", "we", "us", "our team", "team", "the user", "speaker", "self"})

_SEPARATORS = re.compile(r"[\s\-./:]+")
_NON_WORD = re.compile(r"[^a-z0-9_]")
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_SPACES = re.compile(r"\s+")
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)
_TRAILING = ".,;:!?…"

#: Attribute names (after case and separator folding) → the canonical name.
ATTRIBUTE_SYNONYMS: dict[str, str] = {
    # where and who
    "location": "lives_in", "city": "lives_in", "residence": "lives_in", "home_city": "lives_in",
    "current_city": "lives_in", "lives_at": "lives_in", "live_in": "lives_in", "home": "lives_in",
    "place_of_residence": "lives_in", "resides_in": "lives_in", "home_town": "hometown",
    "employer": "works_at", "company": "works_at", "works_for": "works_at", "workplace": "works_at",
    "work_at": "works_at", "current_employer": "works_at",
    "job_title": "role", "occupation": "role", "profession": "role", "job": "role", "position": "role",
    "current_location": "located_in", "traveling_to": "located_in", "travelling_to": "located_in",
    "time_zone": "timezone", "tz": "timezone", "full_name": "name", "nickname": "preferred_name",
    # preferences
    "database": "preferred_database", "db": "preferred_database", "db_choice": "preferred_database",
    "database_choice": "preferred_database", "preferred_db": "preferred_database",
    "database_preference": "preferred_database",
    "programming_language": "preferred_programming_language",
    "preferred_coding_language": "preferred_programming_language",
    "coding_language": "preferred_programming_language",
    "editor": "preferred_editor", "ide": "preferred_editor", "preferred_ide": "preferred_editor",
    "text_editor": "preferred_editor",
    "theme": "preferred_theme", "color_scheme": "preferred_theme", "colour_scheme": "preferred_theme",
    "ui_theme": "preferred_theme",
    "test_framework": "preferred_test_framework", "testing_framework": "preferred_test_framework",
    "meeting_time": "preferred_meeting_time", "meeting_preference": "preferred_meeting_time",
    "language": "preferred_language", "spoken_language": "speaks_language", "speaks": "speaks_language",
    "languages": "speaks_language", "languages_spoken": "speaks_language",
    "dietary_preference": "diet", "dietary_restriction": "diet", "dietary_restrictions": "diet",
    # sets
    "like": "likes", "loves": "likes", "love": "likes", "enjoys": "likes", "enjoy": "likes",
    "interest": "likes", "interests": "likes",
    "hobbies": "hobby", "pets": "has_pet", "pet": "has_pet", "has_pets": "has_pet",
    "children": "has_child", "child": "has_child", "kids": "has_child", "kid": "has_child",
    "has_children": "has_child", "has_kids": "has_child",
    "allergies": "allergy", "allergic_to": "allergy", "allergen": "allergy",
    "medical_conditions": "medical_condition", "condition": "medical_condition",
    "health_condition": "medical_condition",
    "uses": "uses_tool", "tool": "uses_tool", "tools": "uses_tool", "use": "uses_tool",
    "uses_tools": "uses_tool",
    "goals": "goal", "decided": "decision", "decisions": "decision", "choice": "decision",
    "chose": "decision",
}  # fmt: skip

#: Attribute names that state the opposite of a canonical one: `dislikes X` = `likes X`, negative.
NEGATED_ATTRIBUTES: dict[str, str] = {
    "dislikes": "likes", "dislike": "likes", "hates": "likes", "hate": "likes",
    "stopped_using": "uses_tool", "quit_using": "uses_tool", "no_longer_uses": "uses_tool",
    "moved_from": "lives_in", "moved_away_from": "lives_in", "left_company": "works_at",
}  # fmt: skip

#: Prefixes that negate the attribute they stand before ("does_not_use" → `uses_tool`, negative).
_NEGATING_PREFIXES = ("does_not_", "doesnt_", "do_not_", "dont_", "no_longer_", "not_", "never_", "stopped_")

#: Prefixes meaning "prefers" spelt another way.
_PREFERENCE_PREFIXES = ("favorite_", "favourite_", "fav_", "pref_", "preferred_", "prefers_", "favorite", "favourite")
_SUBJECT_PREFIXES = ("user_", "users_", "the_user_")

#: Value prefixes that negate the value ("not vim", "no longer Berlin").
_NEGATED_VALUE = re.compile(r"^(?:not|no longer|no more|never)\s+(?P<v>.+)$", re.IGNORECASE)

_UNITS: dict[str, str] = {
    "kilometers": "km", "kilometres": "km", "kilometer": "km", "kilometre": "km", "kms": "km",
    "miles": "mi", "mile": "mi", "meters": "m", "metres": "m", "meter": "m", "metre": "m",
    "kilograms": "kg", "kilogram": "kg", "kilos": "kg", "kgs": "kg", "pounds": "lb", "lbs": "lb",
    "minutes": "min", "minute": "min", "mins": "min", "hours": "h", "hour": "h", "hrs": "h", "hr": "h",
    "years": "years", "year": "years", "yrs": "years", "yr": "years",
}  # fmt: skip
_QUANTITY = re.compile(r"^(?P<n>\d+(?:[.,]\d+)?)\s*(?P<u>[a-zA-Z]+)(?:\s+old)?$")

#: "Rust for the parser", "to use Rust for the parser": the choice, then the matter.
_FOR_MATTER = re.compile(
    r"^(?:to\s+)?(?:use|go with|adopt|switch to|move to|migrate to|build with|write)?\s*"
    r"(?P<choice>.+?)\s+(?:for|as)\s+(?:the\s+|our\s+|my\s+|a\s+|an\s+)?(?P<matter>[\w\s-]{2,40})$",
    re.IGNORECASE,
)
_USE_PREFIX = re.compile(r"^(?:to\s+)?(?:use|using|go with|adopt|switch to|move to|migrate to)\s+", re.IGNORECASE)


def canonical_attribute(name: str) -> tuple[str, Polarity]:
    """The canonical attribute of `name` and the polarity its spelling carries."""
    spaced = _CAMEL.sub(r"\1_\2", name.strip())  # preferredDatabase → preferred_Database
    folded = _NON_WORD.sub("", _SEPARATORS.sub("_", spaced.casefold())).strip("_")
    folded = re.sub(r"_+", "_", folded)
    for prefix in _SUBJECT_PREFIXES:
        if folded.startswith(prefix) and len(folded) > len(prefix):
            folded = folded[len(prefix) :]
    polarity = Polarity.POSITIVE
    if folded in NEGATED_ATTRIBUTES:
        return NEGATED_ATTRIBUTES[folded], Polarity.NEGATIVE
    for prefix in _NEGATING_PREFIXES:
        if folded.startswith(prefix) and len(folded) > len(prefix):
            base, _ = canonical_attribute(_verb_to_attribute(folded[len(prefix) :]))
            return base, Polarity.NEGATIVE
    if folded in ATTRIBUTE_SYNONYMS:
        return ATTRIBUTE_SYNONYMS[folded], polarity
    for prefix in _PREFERENCE_PREFIXES:
        if folded.startswith(prefix) and len(folded) > len(prefix):
            thing = folded[len(prefix) :].lstrip("_")
            candidate = ATTRIBUTE_SYNONYMS.get(thing, thing)
            if candidate.startswith("preferred_"):
                return candidate, polarity
            return f"preferred_{thing}", polarity
    return folded, polarity


def _verb_to_attribute(rest: str) -> str:
    """After a negating prefix: "use" → "uses", "like" → "likes", "live_in" → "lives_in"."""
    verbs = {"use": "uses_tool", "uses": "uses_tool", "like": "likes", "live_in": "lives_in",
             "work_at": "works_at", "work_for": "works_at", "eat": "diet", "speak": "speaks_language"}  # fmt: skip
    return verbs.get(rest, rest)


def canonical_value(value: str) -> str:
    """Trimmed, one space, no leading article or trailing punctuation, known names and units spelt one way."""
    text = _SPACES.sub(" ", value).strip().rstrip(_TRAILING + " ").strip().strip("\"'“”‘’").strip()
    text = _ARTICLE.sub("", text)
    quantity = _QUANTITY.match(text)
    if quantity:
        unit = quantity.group("u").casefold()
        unit = _UNITS.get(unit, unit)
        return f"{quantity.group('n').replace(',', '.')} {unit}"
    canonical = CANONICAL_NAMES.get(text.casefold())
    # an alias takes the one spelling ("postgres" → "PostgreSQL"); a mere case difference is kept as
    # said, since values compare casefolded anyway
    return canonical if canonical is not None and canonical.casefold() != text.casefold() else text


def value_polarity(value: str) -> tuple[str, Polarity]:
    """A value that negates itself ("not vim", "no longer Berlin") → the bare value, negative."""
    match = _NEGATED_VALUE.match(value.strip())
    if match:
        return match.group("v"), Polarity.NEGATIVE
    return value, Polarity.POSITIVE


def decision_matter(entity: str | None, value: str, context: str | None = None) -> tuple[str, str]:
    """(matter, choice) of a decision: "Rust for the parser" → ("parser", "Rust").

    An entity that already names a matter is kept; else the matter comes from "X for Y", or from
    what kind of thing the choice is ("MySQL" → "database"); failing both, the choice is its own
    matter, so unrelated decisions never replace each other.
    """
    if entity and entity.strip().casefold() not in SPEAKER_ENTITIES:
        return entity.strip().casefold(), canonical_value(_USE_PREFIX.sub("", value))
    found = _FOR_MATTER.match(value.strip())
    if found:
        choice = canonical_value(_USE_PREFIX.sub("", found.group("choice")))
        matter = canonical_value(found.group("matter")).casefold()
        return matter, choice
    choice = canonical_value(_USE_PREFIX.sub("", value))
    kind = MATTER_OF.get(choice.casefold())
    return (kind or choice.casefold()), choice


def normalize_claim(claim: Claim, subjects: frozenset[str] = frozenset()) -> Claim:
    """`claim` with canonical attribute, value, polarity and (for decisions) matter.

    `subjects` are the entity names that mean the speaker in this conversation (e.g. a named
    speaker), besides the generic ones; a claim without an attribute is returned as it is.
    """
    if not claim.attribute:
        return claim
    attribute, polarity = canonical_attribute(claim.attribute)
    if claim.polarity is Polarity.NEGATIVE:
        polarity = _flip(polarity)
    value = claim.value
    entity = claim.entity.strip() if claim.entity else claim.entity
    if value is not None:
        value, negated = value_polarity(value)
        if negated is Polarity.NEGATIVE:
            polarity = _flip(polarity)
        value = canonical_value(value)
    if attribute == "decision" and value:
        speaker = entity is None or entity.casefold() in SPEAKER_ENTITIES or entity in subjects
        entity, value = decision_matter(None if speaker else entity, value, claim.context)
    context = canonical_value(claim.context).casefold() if claim.context else claim.context
    return claim.model_copy(
        update={"attribute": attribute, "value": value, "polarity": polarity, "entity": entity, "context": context}
    )


def _flip(polarity: Polarity) -> Polarity:
    return Polarity.POSITIVE if polarity is Polarity.NEGATIVE else Polarity.NEGATIVE
