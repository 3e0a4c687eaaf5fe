"""Errors of the reading floor.

    BeliefstreamError                     (beliefs.errors)
    └── ConfigurationError                (beliefs.errors)
        └── StripPatternError             an extra strip regex that does not compile
"""

from __future__ import annotations

from beliefs.errors import ConfigurationError


class StripPatternError(ConfigurationError):
    """A configured strip pattern is not a valid regular expression."""

    def __init__(self, pattern: str, message: str) -> None:
        super().__init__(f"invalid strip pattern {pattern!r}: {message}")
        self.pattern = pattern
