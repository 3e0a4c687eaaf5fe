"""Errors of the agents floor (consolidation's own are in `agents.consolidate.errors`).

    BeliefstreamError                     (beliefs.errors)
    ├── ConfigurationError                (beliefs.errors)
    │   └── StripPatternError             an extra strip regex that does not compile
    ├── ExtractorError                    the extractor failed on a turn and had no fallback
    ├── EmbedderUnavailableError          the embedding model is not installed
    ├── LlmCallError                      a Messages API call failed after the SDK's retries
    └── ResponseSchemaError               the model's answer is not the JSON the prompt asked for
"""

from __future__ import annotations

from beliefs.errors import BeliefstreamError, ConfigurationError


class StripPatternError(ConfigurationError):
    """A configured strip pattern is not a valid regular expression."""

    def __init__(self, pattern: str, message: str) -> None:
        super().__init__(f"invalid strip pattern {pattern!r}: {message}")
        self.pattern = pattern


class ExtractorError(BeliefstreamError):
    """The extractor could not turn a batch of turns into claims."""


class EmbedderUnavailableError(BeliefstreamError):
    """The embedding model is not installed or cannot be loaded."""


class LlmCallError(BeliefstreamError):
    """A Messages API call that failed after the SDK's own retries."""


class ResponseSchemaError(BeliefstreamError):
    """The model's answer cannot be read as the prompt's response schema (worth one repair call)."""
