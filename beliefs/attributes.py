"""The structured attributes beliefstream knows, and how each behaves.

Extraction names attributes from this registry; reconcile reads `single_valued` to decide
whether a different value supersedes (a person has one employer at a time) or adds (a person
can have several allergies); recall reads `profile` and `half_life_days`. An attribute outside
the registry (an LLM extractor may invent one) is single-valued per (entity, attribute, context)
unless its name is a known set (`SET_VALUED`): two current values of one claim are a contradiction
until something says they may coexist.
"""

from __future__ import annotations

from dataclasses import dataclass

from beliefs.records import MemoryType


@dataclass(frozen=True)
class AttributeSpec:
    name: str
    single_valued: bool  # a new value supersedes the old one; else values accumulate
    topic: str
    type: MemoryType
    profile: bool = False  # always eligible at recall, outside the similarity race
    half_life_days: float = 180.0  # how fast confidence decays without re-confirmation


_SPECS = [
    AttributeSpec("name", True, "personal", MemoryType.FACT, profile=True, half_life_days=3650),
    AttributeSpec("preferred_name", True, "personal", MemoryType.PREFERENCE, profile=True, half_life_days=3650),
    AttributeSpec("pronouns", True, "personal", MemoryType.FACT, profile=True, half_life_days=1825),
    AttributeSpec("preferred_language", True, "personal", MemoryType.PREFERENCE, profile=True, half_life_days=1825),
    AttributeSpec("accessibility", False, "health", MemoryType.FACT, profile=True, half_life_days=1825),
    AttributeSpec("communication_style", True, "personal", MemoryType.PREFERENCE, profile=True, half_life_days=365),
    # standing instructions about answers ("from now on, reply in bullet points")
    AttributeSpec("response_format", True, "personal", MemoryType.PREFERENCE, profile=True, half_life_days=365),
    AttributeSpec("measurement_units", True, "personal", MemoryType.PREFERENCE, profile=True, half_life_days=730),
    AttributeSpec("timezone", True, "personal", MemoryType.FACT, profile=True, half_life_days=365),
    AttributeSpec("works_at", True, "work", MemoryType.FACT, half_life_days=365),
    AttributeSpec("role", True, "work", MemoryType.FACT, half_life_days=365),
    AttributeSpec("lives_in", True, "personal", MemoryType.FACT, half_life_days=365),
    AttributeSpec("hometown", True, "personal", MemoryType.FACT, half_life_days=3650),
    AttributeSpec("located_in", True, "travel", MemoryType.FACT, half_life_days=7),  # volatile: "in Tokyo this week"
    AttributeSpec("age", True, "personal", MemoryType.FACT, half_life_days=365),
    AttributeSpec("relationship_status", True, "personal", MemoryType.FACT, half_life_days=365),
    AttributeSpec("preferred_meeting_time", True, "work", MemoryType.PREFERENCE, half_life_days=120),
    AttributeSpec("preferred_programming_language", True, "tech", MemoryType.PREFERENCE, half_life_days=365),
    AttributeSpec("preferred_editor", True, "tech", MemoryType.PREFERENCE, half_life_days=365),
    AttributeSpec("preferred_test_framework", True, "tech", MemoryType.PREFERENCE, half_life_days=365),
    AttributeSpec("preferred_theme", True, "tech", MemoryType.PREFERENCE, half_life_days=365),
    AttributeSpec("diet", True, "health", MemoryType.FACT, half_life_days=365),
    AttributeSpec("allergy", False, "health", MemoryType.FACT, half_life_days=1825),
    AttributeSpec("medical_condition", False, "health", MemoryType.FACT, half_life_days=730),
    AttributeSpec("uses_tool", False, "tech", MemoryType.FACT, half_life_days=180),
    AttributeSpec("prefers", False, "personal", MemoryType.PREFERENCE, half_life_days=180),  # free-form "I prefer X"
    AttributeSpec("habit", False, "health", MemoryType.FACT, half_life_days=365),  # "I quit smoking" (negative)
    AttributeSpec("likes", False, "personal", MemoryType.PREFERENCE, half_life_days=180),
    AttributeSpec("dislikes", False, "personal", MemoryType.PREFERENCE, half_life_days=180),
    AttributeSpec("hobby", False, "personal", MemoryType.FACT, half_life_days=365),
    AttributeSpec("has_pet", False, "personal", MemoryType.FACT, half_life_days=730),
    AttributeSpec("has_child", False, "personal", MemoryType.FACT, half_life_days=1825),
    AttributeSpec("goal", False, "personal", MemoryType.DECISION, half_life_days=180),
    # keyed by matter (entity = what is decided): a later decision on the same matter replaces it
    AttributeSpec("decision", True, "work", MemoryType.DECISION, half_life_days=180),
    AttributeSpec("preferred_database", True, "tech", MemoryType.PREFERENCE, half_life_days=365),
    AttributeSpec("speaks_language", False, "personal", MemoryType.FACT, half_life_days=1825),
    AttributeSpec("procedure", True, "work", MemoryType.PROCEDURE, half_life_days=365),
    # negative memory ("never recommend Alto"): a constraint, kept long because violating it is costly
    AttributeSpec("avoid", False, "personal", MemoryType.PREFERENCE, half_life_days=730),
]

ATTRIBUTES: dict[str, AttributeSpec] = {spec.name: spec for spec in _SPECS}

#: Half-life (days) of a memory whose attribute is unknown, by memory type.
DEFAULT_HALF_LIFE_BY_TYPE: dict[MemoryType, float] = {
    MemoryType.PREFERENCE: 180.0,
    MemoryType.FACT: 365.0,
    MemoryType.DECISION: 180.0,
    MemoryType.PROCEDURE: 365.0,
}


#: Attributes outside the registry whose values accumulate (a person has several of each).
SET_VALUED = frozenset(
    {
        "skill", "skills", "owns", "visited", "friend", "friends", "sibling", "siblings", "sport", "sports",
        "plays_instrument", "instrument", "instruments", "interest", "member_of", "degree", "certification",
        "favorite_things", "tag", "tags", "collaborator", "teammate", "project", "projects",
    }
)  # fmt: skip


def attribute_spec(name: str | None) -> AttributeSpec | None:
    """The spec of a known attribute, else None."""
    if name is None:
        return None
    return ATTRIBUTES.get(name)


def is_single_valued(name: str | None) -> bool:
    """Whether a different value of this attribute replaces the current one.

    Registry attributes say so themselves; an unknown one is single-valued unless it is a known set.
    """
    if not name:
        return False
    spec = attribute_spec(name)
    return spec.single_valued if spec else name not in SET_VALUED
