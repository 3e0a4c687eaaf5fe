"""Choose the extractor from settings: the entry points call this and pass the result down.

Imports are local so that the offline `rules` path never loads the Anthropic SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from beliefs.errors import ConfigurationError
from streams.settings import Settings

if TYPE_CHECKING:
    from llm.turn_context import TurnContextSource
    from reading.extractor import Extractor


def make_extractor(settings: Settings, context: TurnContextSource | None = None) -> Extractor:
    """`rules` → the offline rules; `anthropic` → Claude, with the rules as the per-turn fallback
    and `context` (the session's turns and current beliefs, `agents.extraction_context`) per turn."""
    if settings.extractor == "rules":
        from reading.extract.rules import RulesExtractor

        return RulesExtractor()
    if settings.extractor == "anthropic":
        from llm.client import require_api_key
        from llm.extractor import AnthropicExtractor

        require_api_key(settings)  # a missing key is a configuration error, before anything is built
        from reading.extract.rules import RulesExtractor

        return AnthropicExtractor(settings, fallback=RulesExtractor(), context=context)
    raise ConfigurationError(f"unknown extractor {settings.extractor!r}: choose 'rules' or 'anthropic'")
