"""One Messages API call, its answer read by the prompt's parser, every failure one named error.

The SDK retries 429s, 5xx and timeouts itself (`max_retries`); what reaches here has failed for
good (`LlmCallError`), like an answer the parser refuses (`ResponseSchemaError`). `ask_parsed` turns
either into the caller's own error, on which each caller has its fallback (the offline merge, the
extractive answer). `ask_tool` forces one tool and returns its call (the extractor's structured
answer); an answer without that call is a `MalformedAnswerError`.
Each call is counted under its caller's `purpose` (`agents.metrics`: calls, tokens from the
answer's `usage`, failures by kind).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import anthropic

from llm.errors import LlmCallError, MalformedAnswerError, ResponseSchemaError
from llm.metrics import llm_failure_kind, record_llm_failure, record_llm_usage

T = TypeVar("T")


@dataclass(frozen=True)
class ToolCall:
    """The model's call of the forced tool: its id (for a tool_result) and its input, unread."""

    id: str
    input: Any


async def _create(client: anthropic.AsyncAnthropic, purpose: str, **request: Any) -> Any:
    """One `messages.create`, counted under `purpose`; a failure after the SDK's retries is `LlmCallError`."""
    started = time.perf_counter()
    try:
        response = await client.messages.create(**request)
    except anthropic.APIError as exc:
        record_llm_failure(purpose, llm_failure_kind(exc))
        raise _call_error(exc) from exc
    record_llm_usage(purpose, getattr(response, "usage", None), time.perf_counter() - started)
    return response


async def ask_tool(
    client: anthropic.AsyncAnthropic,
    *,
    model: str,
    max_tokens: int,
    system: str | Sequence[Any],
    messages: Sequence[Any],
    tool: dict[str, Any],
    purpose: str = "other",
) -> ToolCall:
    """The model's call of `tool`, which the request forces; `LlmCallError` when the call failed,
    `MalformedAnswerError` when the answer holds no call of it."""
    response = await _create(
        client, purpose, model=model, max_tokens=max_tokens, system=system, messages=list(messages),
        tools=[tool], tool_choice={"type": "tool", "name": tool["name"]},
    )  # fmt: skip
    return tool_call_of(response.content, tool["name"])


def tool_call_of(content: Sequence[Any], name: str) -> ToolCall:
    """The first call of tool `name` among an answer's content blocks (SDK objects or plain dicts)."""
    for block in content:
        fields = block if isinstance(block, dict) else block.__dict__
        if fields.get("type") == "tool_use" and fields.get("name") == name:
            return ToolCall(id=str(fields.get("id", "")), input=fields.get("input"))
    raise MalformedAnswerError(f"the answer holds no call of the {name} tool")


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
    response = await _create(
        client, purpose, model=model, max_tokens=max_tokens, system=system, messages=list(messages)
    )
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
