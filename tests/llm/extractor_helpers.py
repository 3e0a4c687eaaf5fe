"""What the Claude extractor's tests share: a turn, a fallback that marks its output, and the
settings of one request per turn against the fake Messages API (`tests/llm/fake_anthropic.py`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from beliefs.records import Claim, MemoryType, Role, Turn
from llm.extractor import AnthropicExtractor
from streams.settings import Settings
from tests.llm.fake_anthropic import claude_settings

TS = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)


def turn(text: str, role: Role = Role.USER, turn_id: str = "t-1", **metadata: Any) -> Turn:
    return Turn(
        turn_id=turn_id,
        tenant_id="acme",
        user_id="u-42",
        session_id="s-9",
        role=role,
        text=text,
        ts=TS,
        metadata=metadata,
    )


class StubExtractor:
    """A fallback that marks its output, so a test can see it was used."""

    name = "stub"

    def __init__(self) -> None:
        self.turns: list[Turn] = []

    async def extract(self, turns: Sequence[Turn]) -> list[list[Claim]]:
        self.turns.extend(turns)
        return [
            [Claim(text=f"fallback: {t.text}", type=MemoryType.FACT, importance=0.5, confidence=0.5)]
            for t in turns
        ]


def settings_for(url: str, **overrides: Any) -> Settings:
    # one request per turn here; grouping has its own tests (test_extraction_groups.py)
    defaults = {"extractor": "anthropic", "anthropic_max_retries": 1, "extraction_group_turns": False}
    return claude_settings(url, **(defaults | overrides))


#: Builds an extractor for a fake server or a URL (the `make` fixture of tests/llm/conftest.py).
Make = Callable[..., AnthropicExtractor]
