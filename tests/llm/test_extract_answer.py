"""Reading the extraction answer (`llm.prompts.extract_answer`): tolerant of wrapping, strict per item."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from llm.errors import ResponseSchemaError
from llm.prompts.extract_answer import parse_response, read_response
from tests.llm.fake_anthropic import memory

TS = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)


def test_prose_around_the_array_is_tolerated() -> None:
    answer = "Here are the memories [as requested]:\n" + json.dumps([memory()]) + "\nLet me know!"
    assert [c.value for c in parse_response(answer, turn_ts=TS)] == ["pytest"]


def test_explicit_empty_array() -> None:
    assert parse_response("[]") == []
    assert parse_response("Nothing worth remembering here: []") == []


def test_invalid_items_are_dropped_and_counted_not_clamped() -> None:
    answer = json.dumps(
        [
            memory(confidence=1.7),  # out of range: dropped, not clamped to 1.0
            memory(type="opinion"),
            memory(recall_semantics="constraint", trigger=None),
            "just a string",
            memory(value="pytest"),
        ]
    )
    parsed = read_response(answer, turn_ts=TS)
    assert [c.value for c in parsed.claims] == ["pytest"]
    assert len(parsed.dropped) == 4
    assert parsed.dropped[0].startswith("item 0: confidence")


def test_at_most_five_memories() -> None:
    answer = json.dumps([memory(value=f"v{i}") for i in range(7)])
    parsed = read_response(answer, turn_ts=TS)
    assert [c.value for c in parsed.claims] == ["v0", "v1", "v2", "v3", "v4"]
    assert parsed.dropped == ["item 5: over the cap of 5", "item 6: over the cap of 5"]


@pytest.mark.parametrize(
    "answer", ["I could not find anything.", '[{"text": ', json.dumps([{"text": "x"}]), ""]
)
def test_unusable_answers_raise(answer: str) -> None:
    with pytest.raises(ResponseSchemaError):
        read_response(answer, turn_ts=TS)
