"""Fixtures of the Claude extractor's tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from llm.extractor import AnthropicExtractor
from tests.llm.extractor_helpers import Make, settings_for
from tests.llm.fake_anthropic import FakeAnthropic


@pytest.fixture
async def make() -> AsyncIterator[Make]:
    """Builds extractors (for a fake server or a URL) and closes their HTTP clients afterwards."""
    made: list[AnthropicExtractor] = []

    def build(
        target: FakeAnthropic | str, fallback: Any = None, concurrency: int = 8, **overrides: Any
    ) -> AnthropicExtractor:
        url = target if isinstance(target, str) else target.url
        extractor = AnthropicExtractor(
            settings_for(url, **overrides), fallback=fallback, concurrency=concurrency
        )
        made.append(extractor)
        return extractor

    yield build
    for extractor in made:
        await extractor.aclose()
