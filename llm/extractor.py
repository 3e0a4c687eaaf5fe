"""Extraction by Claude over the Messages API: one call per user turn, never trusted blindly.

Each request carries the turn, the session's turns before it and the user's current beliefs that
bear on it (`llm.turn_context`, bounded), so "yes, that one" can be read and a belief updated,
retracted or confirmed by the handle it was offered under.

The answer is a forced tool call whose input schema is the prompt's response model (structured
output: no JSON is dug out of prose). Transport failures (429, 5xx, timeouts, refused connections)
are retried by the SDK itself; what survives its retries is a persistent failure. A tool call that
fails validation (`MalformedAnswerError`) gets one repair call: the call is answered with an error
tool_result that says why. Either way, when a turn still has no usable answer it goes to
the fallback extractor (the offline rules) if there is one, else `ExtractorError` is raised, so a
bad hour at the API degrades memory quality instead of stopping the pipeline.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import anthropic

from beliefs.errors import ConfigurationError
from beliefs.records import Claim, Role, Turn
from llm.call import ToolCall, ask_tool
from llm.client import make_client
from llm.errors import ExtractorError, LlmCallError, MalformedAnswerError
from llm.metrics import record_llm_failure
from llm.prompts import extract_memories as prompt
from llm.prompts.extract_answer import read_tool_input
from llm.turn_context import (
    ContextBounds,
    PrecedingTurn,
    SessionWindows,
    TurnContext,
    TurnContextSource,
    within_bounds,
)
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
    malformed: int = 0  # tool calls that failed the response model (first attempts and repairs)
    api_errors: int = 0  # requests that failed after the SDK's retries
    repairs: int = 0
    dropped_items: int = 0  # invalid or over the cap, touching a redaction, instructions, echoes
    refused_ids: int = 0  # items naming a belief handle the request did not offer (also in dropped_items)
    context_failures: int = 0  # turns sent without their stored context because reading it failed
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
        context: TurnContextSource | None = None,
        bounds: ContextBounds | None = None,
    ) -> None:
        if concurrency < 1:
            raise ConfigurationError(f"extractor concurrency must be at least 1, not {concurrency}")
        self._owns_client = client is None
        self._client = client if client is not None else make_client(settings)
        self._model = settings.anthropic_model
        self._fallback = fallback
        self._slots = asyncio.Semaphore(concurrency)
        self._context = context
        self._bounds = bounds or ContextBounds(
            turns=settings.extraction_context_turns,
            turn_tokens=settings.extraction_context_tokens,
            belief_tokens=settings.extraction_belief_tokens,
        )
        self.stats = ExtractorStats()

    async def aclose(self) -> None:
        """Close the HTTP client if this extractor made it; a client passed in is the caller's to close."""
        if self._owns_client:
            await self._client.close()

    async def extract(self, turns: Sequence[Turn]) -> list[list[Claim]]:
        """Claims per turn, in order. Non-user turns yield [] without a call; each user turn is sent
        with its session's turns before it (stored, then this batch's) and the beliefs on it."""
        windows = SessionWindows()
        jobs = [self._extract_one(turn, windows.before(turn)) for turn in turns]
        results = await asyncio.gather(*jobs, return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                raise result
        return results  # type: ignore[return-value]

    async def _extract_one(self, turn: Turn, in_batch: list[PrecedingTurn]) -> list[Claim]:
        if turn.role is not Role.USER or not turn.text.strip():
            return []
        context = prompt.ExtractionContext.from_turn(
            turn, context=within_bounds(await self._stored_context(turn), in_batch, self._bounds)
        )
        try:
            claims = await self._ask(context)
        except (LlmCallError, MalformedAnswerError) as failed:  # no usable answer for this turn
            return await self._fall_back(turn, str(failed))
        result = enforce_write_policy(claims, turn.text, said_at=turn.ts)
        self.stats.capped += result.capped
        self.stats.dropped_items += result.redacted + result.refused
        return result.claims

    async def _stored_context(self, turn: Turn) -> TurnContext:
        """The source's context of the turn; none (counted, logged) when reading it fails."""
        if self._context is None:
            return TurnContext()
        try:
            return await self._context(turn)
        except Exception as exc:  # noqa: BLE001 - context improves an answer; its outage must not stop one
            self.stats.context_failures += 1
            with bound_turn(turn):
                log.warning("extraction context of turn %s unavailable: %s", turn.turn_id, type(exc).__name__)
            return TurnContext()

    async def _ask(self, context: prompt.ExtractionContext) -> list[Claim]:
        """The validated tool call's claims, after at most one repair call."""
        system, messages = prompt.render(context)
        call = await self._call(system, messages)
        try:
            return self._parse(call, context)
        except MalformedAnswerError as first:
            self._count_malformed()
            self.stats.repairs += 1
            if call is not None:  # answer the call with an error tool_result that says why
                system, messages = prompt.render_repair(context, call.id, call.input, str(first))
        try:
            return self._parse(await self._call(system, messages), context)
        except MalformedAnswerError as second:
            self._count_malformed()
            raise MalformedAnswerError(f"malformed answer twice: {second}") from second

    def _count_malformed(self) -> None:
        self.stats.malformed += 1
        record_llm_failure(PURPOSE, "malformed")

    def _parse(self, call: ToolCall | None, context: prompt.ExtractionContext) -> list[Claim]:
        if call is None:
            raise MalformedAnswerError(f"the answer holds no call of the {prompt.TOOL_NAME} tool")
        parsed = read_tool_input(call.input, turn_ts=context.turn_ts, offered=context.offered())
        self.stats.dropped_items += len(parsed.dropped)
        self.stats.refused_ids += parsed.refused
        if parsed.dropped:
            log.debug(
                "extractor dropped %d item(s): %s", len(parsed.dropped), text("; ".join(parsed.dropped))
            )
        return parsed.claims

    async def _call(self, system: list[dict[str, Any]], messages: list[dict[str, Any]]) -> ToolCall | None:
        """One Messages API request (the SDK retries it); the model's call of the extraction tool,
        None when the answer holds none."""
        async with self._slots:
            self.stats.calls += 1
            try:
                return await ask_tool(
                    self._client, model=self._model, max_tokens=MAX_TOKENS, system=system, messages=messages,
                    tool=prompt.TOOL, purpose=PURPOSE,
                )  # fmt: skip
            except MalformedAnswerError:
                return None
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
