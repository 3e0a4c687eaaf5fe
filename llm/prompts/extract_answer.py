"""The extraction answer, read defensively: the tool call's input in, valid claims and drop reasons out.

The input must be the response model's shape (`{"memories": [...]}`); anything else is a
`MalformedAnswerError`. Every item is then validated on its own against `ExtractedMemory`: an
invalid item is dropped with a reason and counted, never repaired by guessing, and items past
`MAX_MEMORIES` are dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from beliefs.records import Claim
from llm.errors import MalformedAnswerError
from llm.prompts.extract_memories import MAX_MEMORIES, ExtractedMemory


@dataclass(frozen=True)
class ParsedResponse:
    """The claims read from one answer, and why each item that was not kept was dropped."""

    claims: list[Claim]
    dropped: list[str]


def _items(tool_input: Any) -> list[Any]:
    """The memories of the tool input; `MalformedAnswerError` when the input is not that shape."""
    if not isinstance(tool_input, dict) or not isinstance(tool_input.get("memories"), list):
        raise MalformedAnswerError("the tool input holds no list of memories")
    return tool_input["memories"]


def _short(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "item"
    return f"{where}: {first.get('msg', 'invalid')}"


def read_tool_input(tool_input: Any, *, turn_ts: datetime | None = None) -> ParsedResponse:
    """Read one tool call; invalid items are dropped with a reason. Raises `MalformedAnswerError`
    when the input is not `{"memories": [...]}`, or when it has items and none of them is valid
    (worth one repair call)."""
    items = _items(tool_input)
    reference = turn_ts or datetime.now(UTC)
    claims: list[Claim] = []
    dropped: list[str] = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            dropped.append(f"item {index}: not an object")
            continue
        try:
            claim = ExtractedMemory.model_validate(item).to_claim(reference)
        except ValidationError as exc:
            dropped.append(f"item {index}: {_short(exc)}")
            continue
        if len(claims) >= MAX_MEMORIES:
            dropped.append(f"item {index}: over the cap of {MAX_MEMORIES}")
            continue
        claims.append(claim)
    if items and not claims:
        raise MalformedAnswerError("no item fits the schema: " + "; ".join(dropped[:3]))
    return ParsedResponse(claims=claims, dropped=dropped)
