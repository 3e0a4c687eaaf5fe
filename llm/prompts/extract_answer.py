"""The extraction answer, read defensively: the model's text in, valid claims and drop reasons out.

Code fences and stray prose around the array are tolerated, and so is a `{"memories": [...]}`
object. Every item is validated on its own against `ExtractedMemory`; an invalid item is dropped
with a reason and counted, never repaired by guessing, and items past `MAX_MEMORIES` are dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from beliefs.records import Claim
from llm.errors import ResponseSchemaError
from llm.prompts.answer_json import json_values
from llm.prompts.extract_memories import MAX_MEMORIES, ExtractedMemory


@dataclass(frozen=True)
class ParsedResponse:
    """The claims read from one answer, and why each item that was not kept was dropped."""

    claims: list[Claim]
    dropped: list[str]


def _find_items(text: str) -> list[Any]:
    """The first JSON array in the answer (or a `{"memories": [...]}` object), skipping prose around it."""
    for found in json_values(text):
        if isinstance(found, list):
            return found
        if isinstance(found, dict) and isinstance(found.get("memories"), list):
            return found["memories"]
    raise ResponseSchemaError("the answer holds no JSON array of memories")


def _short(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "item"
    return f"{where}: {first.get('msg', 'invalid')}"


def read_response(text: str, *, turn_ts: datetime | None = None) -> ParsedResponse:
    """Parse one answer; invalid items are dropped with a reason. Raises `ResponseSchemaError` when
    there is no array at all, or when it has items and none of them is valid (worth a repair call)."""
    items = _find_items(text)
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
        raise ResponseSchemaError("no item fits the schema: " + "; ".join(dropped[:3]))
    return ParsedResponse(claims=claims, dropped=dropped)


def parse_response(text: str, *, turn_ts: datetime | None = None) -> list[Claim]:
    """The valid claims of one answer (at most five); see `read_response` for what is dropped."""
    return read_response(text, turn_ts=turn_ts).claims
