"""One Messages API call answered as text, with every SDK failure turned into `LlmCallError`.

The SDK retries 429s, 5xx and timeouts itself (`max_retries`); what reaches here has failed for
good, and each caller decides its fallback (the offline merge, the extractive answer).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import anthropic

from beliefs.errors import BeliefstreamError


class LlmCallError(BeliefstreamError):
    """A Messages API call that failed after the SDK's own retries."""


async def ask_text(
    client: anthropic.AsyncAnthropic, *, model: str, max_tokens: int, system: str, messages: Sequence[Any]
) -> str:
    """The text blocks of the answer, joined."""
    try:
        response = await client.messages.create(
            model=model, max_tokens=max_tokens, system=system, messages=list(messages)
        )
    except anthropic.APIStatusError as exc:
        raise LlmCallError(f"API answered {exc.status_code}") from exc
    except anthropic.APITimeoutError as exc:
        raise LlmCallError("API request timed out") from exc
    except anthropic.APIError as exc:  # refused connections, unreadable bodies
        raise LlmCallError(f"API error: {type(exc).__name__}") from exc
    return "".join(block.text for block in response.content if block.type == "text")
