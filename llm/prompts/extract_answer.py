"""The extraction answer, read defensively: the tool call's input in, valid claims and drop reasons out.

The input must be the response model's shape (`{"memories": [...]}`); anything else is a
`MalformedAnswerError`. Every item is then validated on its own against `ExtractedMemory`: an
invalid item is dropped with a reason and counted, never repaired by guessing, and items past
`MAX_MEMORIES` are dropped. A memory that updates, retracts or confirms an offered belief is
anchored to that belief's slot (entity, attribute; its value too for a retraction or a
confirmation), so reconcile sees the same slot the belief holds and decides as for any claim; one
that names a handle the request did not offer is dropped and counted (`refused`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from beliefs.records import Claim, Polarity
from llm.errors import MalformedAnswerError
from llm.prompts.extract_memories import MAX_MEMORIES, ExtractedMemory
from llm.turn_context import OfferedBelief


@dataclass(frozen=True)
class ParsedResponse:
    """The claims read from one answer, per turn of the request, and why each item that was not
    kept was dropped."""

    per_turn: list[list[Claim]]
    dropped: list[str]
    refused: int = 0  # items naming a belief handle the request did not offer

    @property
    def claims(self) -> list[Claim]:
        """Every claim kept, in turn order (a single turn's claims)."""
        return [claim for claims in self.per_turn for claim in claims]


def _items(tool_input: Any) -> list[Any]:
    """The memories of the tool input; `MalformedAnswerError` when the input is not that shape."""
    if not isinstance(tool_input, dict) or not isinstance(tool_input.get("memories"), list):
        raise MalformedAnswerError("the tool input holds no list of memories")
    return tool_input["memories"]


def _short(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "item"
    return f"{where}: {first.get('msg', 'invalid')}"


def anchored(memory: ExtractedMemory, claim: Claim, belief: OfferedBelief) -> Claim:
    """The claim on the offered belief's slot: an update keeps the new value, a retraction negates
    the belief's value, a confirmation restates it."""
    slot = {"entity": belief.entity or claim.entity, "attribute": belief.attribute or claim.attribute}
    if memory.action == "update":
        return claim.model_copy(update=slot | {"polarity": Polarity.POSITIVE})
    if memory.action == "retract":
        return claim.model_copy(update=slot | {"value": belief.value or claim.value, "polarity": Polarity.NEGATIVE})
    return claim.model_copy(update=slot | {"value": belief.value, "polarity": belief.polarity, "text": belief.text})


def read_tool_input(
    tool_input: Any,
    *,
    turn_ts: datetime | None = None,
    offered: Mapping[str, OfferedBelief] | None = None,
    turn_times: Sequence[datetime] | None = None,
) -> ParsedResponse:
    """Read one tool call; invalid items are dropped with a reason, and so are items naming a
    belief handle not in `offered` or a turn the request did not number. `turn_times` gives each
    numbered turn's timestamp (a group); else the answer is of one turn said at `turn_ts`.
    Raises `MalformedAnswerError` when the input is not `{"memories": [...]}`, or when it has items
    and none of them is valid (worth one repair call)."""
    items = _items(tool_input)
    times = list(turn_times) if turn_times else [turn_ts or datetime.now(UTC)]
    offered = offered or {}
    per_turn: list[list[Claim]] = [[] for _ in times]
    dropped: list[str] = []
    refused = 0
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            dropped.append(f"item {index}: not an object")
            continue
        try:
            memory = ExtractedMemory.model_validate(item)
        except ValidationError as exc:
            dropped.append(f"item {index}: {_short(exc)}")
            continue
        number = memory.turn or (1 if len(times) == 1 else 0)
        if not 1 <= number <= len(times):
            dropped.append(f"item {index}: turn {memory.turn} is not a turn of the request")
            continue
        claim = memory.to_claim(times[number - 1])
        if memory.belief is not None:
            belief = offered.get(memory.belief)
            if belief is None:
                refused += 1
                dropped.append(f"item {index}: belief {memory.belief!r} was not offered")
                continue
            claim = anchored(memory, claim, belief)
        if len(per_turn[number - 1]) >= MAX_MEMORIES:
            dropped.append(f"item {index}: over the cap of {MAX_MEMORIES}")
            continue
        per_turn[number - 1].append(claim)
    if items and not any(per_turn) and not refused:
        raise MalformedAnswerError("no item fits the schema: " + "; ".join(dropped[:3]))
    return ParsedResponse(per_turn=per_turn, dropped=dropped, refused=refused)
