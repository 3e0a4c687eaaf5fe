"""The canonical text by Claude (prompt `merge_memories`), with the offline merge as the fallback.

Consolidation is a batch job, so a failed call (API error after the SDK's retries, an answer that
is not the prompt's JSON) does not stop it: the group is merged offline instead and counted.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import anthropic

from agents.consolidate.errors import MergeFailedError
from agents.consolidate.merge import Merged, Merger, OfflineMerger
from llm.call import ask_parsed
from llm.client import make_client
from llm.prompts import merge_memories as prompt
from streams.settings import Settings

log = logging.getLogger(__name__)

#: Output budget of one canonical memory (two sentences fit many times over).
MAX_TOKENS = 512


@dataclass
class MergerStats:
    calls: int = 0
    fallbacks: int = 0


class AnthropicMerger:
    """`Merger` backed by Claude (`settings.anthropic_model`); falls back to `fallback` on failure."""

    name = "anthropic"

    def __init__(
        self,
        settings: Settings,
        client: anthropic.AsyncAnthropic | None = None,
        fallback: Merger | None = None,
    ) -> None:
        self._owns_client = client is None
        self._client = client if client is not None else make_client(settings)
        self._model = settings.anthropic_model
        self._fallback = fallback if fallback is not None else OfflineMerger()
        self.stats = MergerStats()

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.close()

    async def merge(self, context: prompt.MergeContext) -> Merged:
        try:
            return Merged(await self._ask(context), self.name)
        except MergeFailedError as failed:
            self.stats.fallbacks += 1
            log.warning("LLM merge failed, merging offline instead: %s", failed)
            return await self._fallback.merge(context)

    async def _ask(self, context: prompt.MergeContext) -> str:
        system, messages = prompt.render(context)
        self.stats.calls += 1
        merged = await ask_parsed(
            self._client,
            model=self._model,
            max_tokens=MAX_TOKENS,
            system=system,
            messages=messages,
            read=prompt.read_response,
            failed=MergeFailedError,
            purpose="consolidation",
        )
        return merged.text


def make_merger(settings: Settings, client: anthropic.AsyncAnthropic | None = None) -> Merger:
    """Claude when the pipeline extracts with Claude (`BELIEFSTREAM_EXTRACTOR=anthropic`), else offline."""
    if settings.extractor == "anthropic":
        return AnthropicMerger(settings, client=client)
    return OfflineMerger()
