"""One Messages API call answered as text, with every SDK failure turned into `LlmCallError`.

The SDK retries 429s, 5xx and timeouts itself (`max_retries`); what reaches here has failed for
good, and each caller decides its fallback (the offline merge, the extractive answer). Each call
is counted by `purpose` (`agents.metrics`: calls, tokens from `usage`, failures by kind).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import anthropic

from agents.metrics import llm_failure_kind, record_llm_failure, record_llm_usage
from beliefs.errors import BeliefstreamError


class LlmCallError(BeliefstreamError):
    """A Messages API call that failed after the SDK's own retries."""


async def ask_text(
    client: anthropic.AsyncAnthropic,
    *,
    model: str,
    max_tokens: int,
    system: str,
    messages: Sequence[Any],
    purpose: str = "other",
) -> str:
    """The text blocks of the answer, joined; `purpose` labels the call's metrics."""
    started = time.perf_counter()
    try:
        response = await client.messages.create(
            model=model, max_tokens=max_tokens, system=system, messages=list(messages)
        )
    except anthropic.APIError as exc:
        record_llm_failure(purpose, llm_failure_kind(exc))
        raise _call_error(exc) from exc
    record_llm_usage(purpose, getattr(response, "usage", None), time.perf_counter() - started)
    return "".join(block.text for block in response.content if block.type == "text")


def _call_error(exc: anthropic.APIError) -> LlmCallError:
    if isinstance(exc, anthropic.APIStatusError):
        return LlmCallError(f"API answered {exc.status_code}")
    if isinstance(exc, anthropic.APITimeoutError):
        return LlmCallError("API request timed out")
    return LlmCallError(f"API error: {type(exc).__name__}")  # refused connections, unreadable bodies
