"""Errors of recall.

    BeliefstreamError
    └── RecallError
        └── UnknownPresetError   a request named a preset that does not exist (400)
"""

from beliefs.errors import BeliefstreamError


class RecallError(BeliefstreamError):
    """Recall could not be carried out as asked."""


class UnknownPresetError(RecallError, ValueError):
    """No preset of that name."""
