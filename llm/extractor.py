"""Extraction by Claude over the Messages API: one call per user turn, never trusted blindly.

Transport failures (429, 5xx, timeouts, refused connections) are retried by the SDK itself; what
survives its retries is a persistent failure. An answer that is not the prompt's JSON gets one
repair call that quotes the error. Either way, when a turn still has no usable answer it goes to
the fallback extractor (the offline rules) if there is one, else `ExtractorError` is raised, so a
bad hour at the API degrades memory quality instead of stopping the pipeline.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import anthropic

from beliefs.errors import ConfigurationError
from beliefs.records import Claim, Role, Turn
from llm.call import ask_text
from llm.client import make_client
from llm.errors import ExtractorError, LlmCallError, ResponseSchemaError
from llm.metrics import record_llm_failure
from llm.prompts import extract_memories as prompt
from llm.prompts.extract_answer import read_response
from reading.extract.write_policy import enforce_write_policy
from streams.logs import bound_turn, text
from streams.settings import Settings

if TYPE_CHECKING:
    from reading.extractor import Extractor  # the protocol; only needed for typing

log = logging.getLogger(__name__)

#: Output budget of one answer: five memories with evidence fit well inside it.
MAX_TOKENS = 1024
#: The `purpose` label of extraction's LLM metrics.
PURPOSE = "extraction"

# No `temperature`: SDK 2.x sends anthropic-version 2026-10-21, which rejects temperature, top_p
# and top_k with a 400 even at their defaults (the SDK dropped the parameters too). Stable output
# comes from the prompt's fixed schema, the strict parser and the code-side write policy instead.


@dataclass
class ExtractorStats:
    """Counters the pipeline reports. `calls` counts our requests (the SDK may retry each one)."""

    calls: int = 0
    fallbacks: int = 0
    malformed: int = 0  # answers that were not the prompt's JSON (first attempts and repairs)
    api_errors: int = 0  # requests that failed after the SDK's retries
    repairs: int = 0
    dropped_items: int = 0  # invalid or over the cap, unimportant, task state, touching a redaction, instructions, echoes
    capped: int = 0  # hypothetical claims whose confidence was lowered to the cap

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


class AnthropicExtractor:
    """The `Extractor` backed by Claude (`settings.anthropic_model`), with a bounded number of calls in flight."""

    name = "anthropic"

    def __init__(
        self,
        settings: Settings,
        client: anthropic.AsyncAnthropic | None = None,
        fallback: Extractor | None = None,
        concurrency: int = 8,
    ) -> None:
        if concurrency < 1:
            raise ConfigurationError(f"extractor concurrency must be at least 1, not {concurrency}")
        self._owns_client = client is None
        self._client = client if client is not None else make_client(settings)
        self._model = settings.anthropic_model
        self._fallback = fallback
        self._slots = asyncio.Semaphore(concurrency)
        self.stats = ExtractorStats()

    async def aclose(self) -> None:
        """Close the HTTP client if this extractor made it; a client passed in is the caller's to close."""
        if self._owns_client:
            await self._client.close()

    async def extract(self, turns: Sequence[Turn]) -> list[list[Claim]]:
        """Claims per turn, in order. Non-user turns yield [] without a call."""
        results = await asyncio.gather(*(self._extract_one(turn) for turn in turns), return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                raise result
        return results  # type: ignore[return-value]

    async def _extract_one(self, turn: Turn) -> list[Claim]:
        if turn.role is not Role.USER or not turn.text.strip():
            return []
        context = prompt.ExtractionContext.from_turn(turn)
        try:
            claims = await self._ask(context)
        except (LlmCallError, ResponseSchemaError) as failed:  # no usable answer for this turn
            return await self._fall_back(turn, str(failed))
        result = enforce_write_policy(claims, turn.text, said_at=turn.ts)
        self.stats.capped += result.capped
        self.stats.dropped_items += result.redacted + result.refused + result.unimportant + result.task_state
        return result.claims

    async def _ask(self, context: prompt.ExtractionContext) -> list[Claim]:
        """The parsed answer, after at most one repair call."""
        system, messages = prompt.render(context)
        answer = await self._call(system, messages)
        try:
            return self._parse(answer, context)
        except ResponseSchemaError as first:
            self.stats.malformed += 1
            record_llm_failure(PURPOSE, "malformed")
            self.stats.repairs += 1
            system, messages = prompt.render_repair(context, answer, str(first))
            repaired = await self._call(system, messages)
            try:
                return self._parse(repaired, context)
            except ResponseSchemaError as second:
                self.stats.malformed += 1
                record_llm_failure(PURPOSE, "malformed")
                raise ResponseSchemaError(f"malformed answer twice: {second}") from second

    def _parse(self, answer: str, context: prompt.ExtractionContext) -> list[Claim]:
        parsed = read_response(answer, turn_ts=context.turn_ts)
        self.stats.dropped_items += len(parsed.dropped)
        if parsed.dropped:
            log.debug("extractor dropped %d item(s): %s", len(parsed.dropped), text("; ".join(parsed.dropped)))
        return parsed.claims

    async def _call(self, system: str, messages: list[dict[str, str]]) -> str:
        """One Messages API request (the SDK retries it); the text of the answer."""
        async with self._slots:
            self.stats.calls += 1
            try:
                return await ask_text(
                    self._client, model=self._model, max_tokens=MAX_TOKENS, system=system, messages=messages,
                    purpose=PURPOSE,
                )  # fmt: skip
            except LlmCallError:
                self.stats.api_errors += 1
                raise

    async def _fall_back(self, turn: Turn, reason: str) -> list[Claim]:
        if self._fallback is None:
            raise ExtractorError(f"turn {turn.turn_id}: {reason}")
        self.stats.fallbacks += 1
        cause, _, detail = reason.partition(": ")  # the detail may quote the model's output
        with bound_turn(turn):
            log.warning(
                "extractor %s fell back to %s for turn %s: %s %s",
                self.name,
                self._fallback.name,
                turn.turn_id,
                cause,
                text(detail) if detail else "",
            )
        claims = await self._fallback.extract([turn])
        return claims[0] if claims else []
