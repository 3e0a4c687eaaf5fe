"""Errors of the process wiring (the CLI turns every `BeliefstreamError` into one clear line).

    BeliefstreamError          (beliefs.errors)
    └── PublishInterrupted     the broker stopped acknowledging in the middle of a published file
"""

from beliefs.errors import BeliefstreamError


class PublishInterrupted(BeliefstreamError):
    """The broker stopped acknowledging in the middle of a file."""
