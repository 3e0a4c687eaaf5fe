"""Errors of the write-path agents, all under the one root `BeliefstreamError`.

BeliefstreamError                     (streams.errors)
├── ConfigurationError                (streams.errors)
│   └── StripPatternError             an extra strip regex that does not compile
├── TurnRejected(reason, detail)      a turn that goes to the DLQ, with its reason
├── ExtractorError                    the extractor failed on a batch
└── EmbedderUnavailableError          the embedding model is not installed
"""

from __future__ import annotations

from beliefs.errors import BeliefstreamError, ConfigurationError


class StripPatternError(ConfigurationError):
    """A configured strip pattern is not a valid regular expression."""

    def __init__(self, pattern: str, message: str) -> None:
        super().__init__(f"invalid strip pattern {pattern!r}: {message}")
        self.pattern = pattern


class TurnRejected(BeliefstreamError):
    """A turn the pipeline refuses; it goes to the dead-letter topic with `reason`."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


class ExtractorError(BeliefstreamError):
    """The extractor could not turn a batch of turns into claims."""


class EmbedderUnavailableError(BeliefstreamError):
    """The embedding model is not installed or cannot be loaded."""
