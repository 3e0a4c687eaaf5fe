"""Errors of the LLM calls (consolidation's own are in `agents.consolidate.errors`).

    BeliefstreamError                     (beliefs.errors)
    ├── ExtractorError                    the extractor failed on a turn and had no fallback
    ├── LlmCallError                      a Messages API call failed after the SDK's retries
    └── ResponseSchemaError               the model's answer is not the JSON the prompt asked for
        └── MalformedAnswerError          the structured (tool-use) answer fails the response model
"""

from __future__ import annotations

from beliefs.errors import BeliefstreamError


class ExtractorError(BeliefstreamError):
    """The extractor could not turn a batch of turns into claims."""


class LlmCallError(BeliefstreamError):
    """A Messages API call that failed after the SDK's own retries."""


class ResponseSchemaError(BeliefstreamError):
    """The model's answer cannot be read as the prompt's response schema (worth one repair call)."""


class MalformedAnswerError(ResponseSchemaError):
    """The model's tool call is missing, or its input does not validate against the prompt's
    response model (worth one repair call, then the fallback)."""
