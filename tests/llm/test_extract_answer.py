"""Reading the extraction tool call (`llm.prompts.extract_answer`): strict about its shape and per item."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from llm.errors import MalformedAnswerError
from llm.prompts.extract_answer import read_tool_input
from tests.llm.fake_anthropic import memory

TS = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)


def test_a_valid_call_becomes_claims() -> None:
    assert [c.value for c in read_tool_input({"memories": [memory()]}, turn_ts=TS).claims] == ["pytest"]


def test_no_memories_is_a_normal_answer() -> None:
    assert read_tool_input({"memories": []}).claims == []


def test_invalid_items_are_dropped_and_counted_not_clamped() -> None:
    items = [
        memory(confidence=1.7),  # out of range: dropped, not clamped to 1.0
        memory(type="opinion"),
        memory(recall_semantics="constraint", trigger=None),
        "just a string",
        memory(value="pytest"),
    ]
    parsed = read_tool_input({"memories": items}, turn_ts=TS)
    assert [c.value for c in parsed.claims] == ["pytest"]
    assert len(parsed.dropped) == 4
    assert parsed.dropped[0].startswith("item 0: confidence")


def test_at_most_five_memories() -> None:
    parsed = read_tool_input({"memories": [memory(value=f"v{i}") for i in range(7)]}, turn_ts=TS)
    assert [c.value for c in parsed.claims] == ["v0", "v1", "v2", "v3", "v4"]
    assert parsed.dropped == ["item 5: over the cap of 5", "item 6: over the cap of 5"]


@pytest.mark.parametrize(
    "tool_input", [None, "[]", [memory()], {"items": [memory()]}, {"memories": [{"text": "x"}]}]
)
def test_unusable_inputs_raise_the_one_named_error(tool_input: Any) -> None:
    with pytest.raises(MalformedAnswerError):
        read_tool_input(tool_input, turn_ts=TS)
