"""Errors of the embedding model.

    BeliefstreamError                     (beliefs.errors)
    └── EmbedderUnavailableError          the embedding model is not installed
"""

from __future__ import annotations

from beliefs.errors import BeliefstreamError


class EmbedderUnavailableError(BeliefstreamError):
    """The embedding model is not installed or cannot be loaded."""
