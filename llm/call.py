"""One Messages API call, its answer read by the prompt's parser, every failure one named error.

The SDK retries 429s, 5xx and timeouts itself (`max_retries`); what reaches here has failed for
good (`LlmCallError`), like an answer the parser refuses (`ResponseSchemaError`). `ask_parsed` turns
either into the caller's own error, on which each caller has its fallback (the offline merge, the
extractive answer); the extractor, which repairs a malformed answer once, calls `ask_text`.
Each call is counted under its caller's `purpose` (`agents.metrics`: calls, tokens from the
answer's `usage`, failures by kind).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import anthropic

from llm.errors import LlmCallError, ResponseSchemaError
from llm.metrics import llm_failure_kind, record_llm_failure, record_llm_usage

T = TypeVar("T")


async def ask_text(
    client: anthropic.AsyncAnthropic,
    *,
    model: str,
    max_tokens: int,
    system: str,
    messages: Sequence[Any],
    purpose: str = "other",
) -> str:
    """The text blocks of the answer, joined; `LlmCallError` when the call failed."""
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
    if isinstance(exc, anthropic.APIConnectionError):
        return LlmCallError(f"API unreachable: {exc}")
    return LlmCallError(f"API error: {type(exc).__name__}")  # e.g. an unreadable response body


async def ask_parsed(
    client: anthropic.AsyncAnthropic,
    *,
    model: str,
    max_tokens: int,
    system: str,
    messages: Sequence[Any],
    read: Callable[[str], T],
    failed: Callable[[str], Exception],
    purpose: str = "other",
) -> T:
    """The answer as `read` parses it. A failed call raises `failed(reason)`, an answer `read`
    refuses (`ResponseSchemaError`) `failed("malformed answer: ...")`, each chained to its cause."""
    try:
        answer = await ask_text(
            client, model=model, max_tokens=max_tokens, system=system, messages=messages, purpose=purpose
        )
    except LlmCallError as exc:
        raise failed(str(exc)) from exc
    try:
        return read(answer)
    except ResponseSchemaError as exc:
        record_llm_failure(purpose, "malformed")
        raise failed(f"malformed answer: {exc}") from exc
