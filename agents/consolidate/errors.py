"""Errors of consolidation.

BeliefstreamError
└── ConsolidationError
    ├── InvalidThresholdError   a similarity threshold outside (0, 1]
    └── MergeFailedError        the LLM gave no usable canonical text (the offline merge takes over)
"""

from beliefs.errors import BeliefstreamError


class ConsolidationError(BeliefstreamError):
    """Consolidation could not run as asked."""


class InvalidThresholdError(ConsolidationError, ValueError):
    """The similarity threshold is not a cosine similarity in (0, 1]."""


class MergeFailedError(ConsolidationError):
    """A merger could not produce the canonical text of a group."""
