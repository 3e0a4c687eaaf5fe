"""The conflicts a recall reports (contract §3): two current memories that disagree, and an
attribute in a contradiction loop awaiting a decision, in one shape (`ConflictView`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from beliefs.records import Polarity
from sidecar.recall.policy import Conflict
from sinks.recall import OpenContest

ConflictKind = Literal["contradiction", "contested"]

CONTRADICTION_WHY = "contradicting current memories: the stronger (confidence, then recency) is recalled"
CONTESTED_WHY = (
    "contested: awaiting a decision (GET /v1/contested, POST /v1/contested/{id}/resolve); "
    "no value of it is recalled"
)


class ConflictValue(BaseModel):
    """One side of a conflict: a value, the context it was said for, and the memory that says it."""

    memory_id: str
    value: str | None
    context: str | None = None
    polarity: Polarity = Polarity.POSITIVE


class ConflictView(BaseModel):
    """One entry of `conflicts`, one shape for both kinds.

    `contradiction`: two current memories disagree; the stronger (`kept_*`) is recalled, the other
    (`dropped_*`) is not. `contested`: the attribute is in a contradiction loop awaiting a decision
    (`contested_id`, for `POST /v1/contested/{id}/resolve`); none of its `values` is recalled, so
    `kept_*` and `dropped_*` are null. `values` lists the competing values either way.
    """

    kind: ConflictKind
    entity: str
    attribute: str
    context: str | None = None
    values: list[ConflictValue] = Field(description="the competing values; a contradiction's kept one first")
    kept_id: str | None = None
    kept_value: str | None = None
    dropped_id: str | None = None
    dropped_value: str | None = None
    contested_id: str | None = None
    why: str

    @classmethod
    def of_contradiction(cls, conflict: Conflict) -> ConflictView:
        sides = [
            (conflict.kept_id, conflict.kept_value, conflict.kept_polarity),
            (conflict.dropped_id, conflict.dropped_value, conflict.dropped_polarity),
        ]
        values = [ConflictValue(memory_id=i, value=v, context=conflict.context, polarity=p) for i, v, p in sides]
        fields = conflict.model_dump(exclude={"kept_polarity", "dropped_polarity"})
        return cls(kind="contradiction", values=values, why=CONTRADICTION_WHY, **fields)

    @classmethod
    def of_contest(cls, contest: OpenContest) -> ConflictView:
        values = [
            ConflictValue(memory_id=m.id, value=m.value, context=m.context, polarity=m.polarity)
            for m in contest.memories
        ]
        return cls(
            kind="contested",
            entity=contest.entity,
            attribute=contest.attribute,
            values=values,
            contested_id=contest.contested_id,
            why=CONTESTED_WHY,
        )
