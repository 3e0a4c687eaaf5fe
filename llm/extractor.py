"""Extraction by Claude over the Messages API: one call per user turn (or per group of one
session's turns, when that costs less), never trusted blindly.

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
from typing import TYPE_CHECKING

import anthropic

from beliefs.errors import ConfigurationError
from beliefs.records import Claim, Role, Turn
from llm.call import ToolCall, ask_tool
from llm.client import make_client
from llm.errors import ExtractorError, LlmCallError, MalformedAnswerError
from llm.metrics import record_llm_failure
from llm.prompts import extract_memories as prompt
from llm.prompts.extract_answer import read_tool_input
from llm.prompts.extract_request import ExtractionRequest, max_tokens_for, repaired, request_for
from llm.prompts.extract_request import plan as plan_requests
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




def _session_key(turn: Turn) -> tuple[str, ...] | None:
    """Turns that may share a request: one user's, in one session (none without a session)."""
    return None if turn.session_id is None else (turn.tenant_id, turn.user_id, turn.session_id)
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
    dropped_items: int = 0  # invalid or over the cap, unimportant, task state, touching a redaction, instructions, echoes
    refused_ids: int = 0  # items naming a belief handle the request did not offer (also in dropped_items)
    context_failures: int = 0  # turns sent without their stored context because reading it failed
    grouped_requests: int = 0  # requests that read several turns of one session
    grouped_turns: int = 0  # the turns those requests read
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
        group: bool | None = None,
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
        self._group = settings.extraction_group_turns if group is None else group
        self.stats = ExtractorStats()

    async def aclose(self) -> None:
        """Close the HTTP client if this extractor made it; a client passed in is the caller's to close."""
        if self._owns_client:
            await self._client.close()

    async def extract(self, turns: Sequence[Turn]) -> list[list[Claim]]:
        """Claims per turn, in order. Non-user turns yield [] without a call; each user turn is sent
        with its session's turns before it (stored, then this batch's) and the beliefs on it, alone
        or with the next turns of its session when one request for them costs less."""
        windows = SessionWindows()
        befores = [windows.before(turn) for turn in turns]
        sent = [at for at, turn in enumerate(turns) if turn.role is Role.USER and turn.text.strip()]
        contexts = await asyncio.gather(*(self._context_of(turns[at], befores[at]) for at in sent))
        sessions = [_session_key(turns[at]) for at in sent]
        groups = [[sent[i] for i in group] for group in plan_requests(contexts, sessions)] if self._group else [[at] for at in sent]
        by_turn = dict(zip(sent, contexts, strict=True))
        answers = await asyncio.gather(
            *(self._extract_group([turns[at] for at in group], [by_turn[at] for at in group]) for group in groups),
            return_exceptions=True,
        )
        results: list[list[Claim]] = [[] for _ in turns]
        for group, answer in zip(groups, answers, strict=True):
            if isinstance(answer, BaseException):
                raise answer
            for at, claims in zip(group, answer, strict=True):
                results[at] = claims
        return results

    async def _context_of(self, turn: Turn, in_batch: list[PrecedingTurn]) -> prompt.ExtractionContext:
        stored = await self._stored_context(turn)
        return prompt.ExtractionContext.from_turn(turn, context=within_bounds(stored, in_batch, self._bounds))

    async def _extract_group(
        self, turns: list[Turn], contexts: list[prompt.ExtractionContext]
    ) -> list[list[Claim]]:
        """One request for these turns; each turn's claims through the write policy, or (no usable
        answer) from the fallback."""
        if len(turns) > 1:
            self.stats.grouped_requests += 1
            self.stats.grouped_turns += len(turns)
        try:
            per_turn = await self._ask(request_for(contexts))
        except (LlmCallError, MalformedAnswerError) as failed:  # no usable answer for these turns
            return [await self._fall_back(turn, str(failed)) for turn in turns]
        kept: list[list[Claim]] = []
        for turn, claims in zip(turns, per_turn, strict=True):
            result = enforce_write_policy(claims, turn.text, said_at=turn.ts)
            self.stats.capped += result.capped
            self.stats.dropped_items += result.redacted + result.refused + result.unimportant + result.task_state
            kept.append(result.claims)
        return kept

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

    async def _ask(self, request: ExtractionRequest) -> list[list[Claim]]:
        """The validated tool call's claims per turn, after at most one repair call."""
        call = await self._call(request)
        try:
            return self._parse(call, request)
        except MalformedAnswerError as first:
            self._count_malformed()
            self.stats.repairs += 1
            request = repaired(request, call, str(first))
        try:
            return self._parse(await self._call(request), request)
        except MalformedAnswerError as second:
            self._count_malformed()
            raise MalformedAnswerError(f"malformed answer twice: {second}") from second

    def _count_malformed(self) -> None:
        self.stats.malformed += 1
        record_llm_failure(PURPOSE, "malformed")

    def _parse(self, call: ToolCall | None, request: ExtractionRequest) -> list[list[Claim]]:
        if call is None:
            raise MalformedAnswerError(f"the answer holds no call of the {prompt.TOOL_NAME} tool")
        parsed = read_tool_input(call.input, turn_times=request.turn_times, offered=request.offered)
        self.stats.dropped_items += len(parsed.dropped)
        self.stats.refused_ids += parsed.refused
        if parsed.dropped:
            log.debug("extractor dropped %d item(s): %s", len(parsed.dropped), text("; ".join(parsed.dropped)))
        return parsed.per_turn

    async def _call(self, request: ExtractionRequest) -> ToolCall | None:
        """One Messages API request (the SDK retries it); the model's call of the extraction tool,
        None when the answer holds none."""
        async with self._slots:
            self.stats.calls += 1
            try:
                return await ask_tool(
                    self._client, model=self._model, max_tokens=max_tokens_for(len(request.turn_times)),
                    system=request.system, messages=request.messages, tool=prompt.TOOL, purpose=PURPOSE,
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
