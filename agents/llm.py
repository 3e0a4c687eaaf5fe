"""One Messages API call, its answer read by the prompt's parser, every failure one named error.

The SDK retries 429s, 5xx and timeouts itself (`max_retries`); what reaches here has failed for
good (`LlmCallError`), like an answer the parser refuses (`ResponseSchemaError`). `ask_parsed` turns
either into the caller's own error, on which each caller has its fallback (the offline merge, the
extractive answer); the extractor, which repairs a malformed answer once, calls `ask_text`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import anthropic

from agents.errors import LlmCallError, ResponseSchemaError

T = TypeVar("T")


async def ask_text(
    client: anthropic.AsyncAnthropic, *, model: str, max_tokens: int, system: str, messages: Sequence[Any]
) -> str:
    """The text blocks of the answer, joined; `LlmCallError` when the call failed."""
    try:
        response = await client.messages.create(
            model=model, max_tokens=max_tokens, system=system, messages=list(messages)
        )
    except anthropic.APIStatusError as exc:
        raise LlmCallError(f"API answered {exc.status_code}") from exc
    except anthropic.APITimeoutError as exc:
        raise LlmCallError("API request timed out") from exc
    except anthropic.APIConnectionError as exc:
        raise LlmCallError(f"API unreachable: {exc}") from exc
    except anthropic.APIError as exc:  # e.g. an unreadable response body
        raise LlmCallError(f"API error: {type(exc).__name__}") from exc
    return "".join(block.text for block in response.content if block.type == "text")


async def ask_parsed(
    client: anthropic.AsyncAnthropic,
    *,
    model: str,
    max_tokens: int,
    system: str,
    messages: Sequence[Any],
    read: Callable[[str], T],
    failed: Callable[[str], Exception],
) -> T:
    """The answer as `read` parses it. A failed call raises `failed(reason)`, an answer `read`
    refuses (`ResponseSchemaError`) `failed("malformed answer: ...")`, each chained to its cause."""
    try:
        answer = await ask_text(client, model=model, max_tokens=max_tokens, system=system, messages=messages)
    except LlmCallError as exc:
        raise failed(str(exc)) from exc
    try:
        return read(answer)
    except ResponseSchemaError as exc:
        raise failed(f"malformed answer: {exc}") from exc
