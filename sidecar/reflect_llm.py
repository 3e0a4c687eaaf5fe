"""The LLM answerer of reflect: one Messages API call per question, its answer never trusted blindly.

The SDK retries transport failures itself (settings: timeout, retries, base URL); whatever survives
them, and any answer that is not the prompt's JSON, is a `ReflectAnswerError`, on which reflect
answers extractively instead. No `temperature`: SDK 2.x's API version refuses it (see
`llm.extractor`).
"""

from __future__ import annotations

import anthropic

from llm.call import ask_parsed
from llm.client import make_client
from llm.prompts import reflect_answer as prompt
from sidecar.errors import ReflectAnswerError
from streams.settings import Settings

#: Output budget of one answer: a few sentences and the cited ids.
MAX_TOKENS = 1024


class AnthropicAnswerer:
    """`Answerer` backed by Claude (`settings.anthropic_model`)."""

    def __init__(self, settings: Settings, client: anthropic.AsyncAnthropic | None = None) -> None:
        self._owns_client = client is None
        self._client = client if client is not None else make_client(settings)
        self._model = settings.anthropic_model

    async def aclose(self) -> None:
        """Close the HTTP client if this answerer made it."""
        if self._owns_client:
            await self._client.close()

    async def answer(self, context: prompt.ReflectContext) -> prompt.ReflectAnswer:
        system, messages = prompt.render(context)
        evidence = [item.id for item in context.evidence]
        return await ask_parsed(
            self._client,
            model=self._model,
            max_tokens=MAX_TOKENS,
            system=system,
            messages=messages,
            read=lambda text: prompt.read_response(text, evidence),
            failed=ReflectAnswerError,
            purpose="reflect",
        )


def make_answerer(settings: Settings) -> AnthropicAnswerer | None:
    """The answerer `settings.reflect_answerer` asks for: Claude for "anthropic" (a missing API key is
    a `ConfigurationError` at start-up), None (extractive answers) for "extractive"."""
    if settings.reflect_answerer == "anthropic":
        return AnthropicAnswerer(settings)
    return None
