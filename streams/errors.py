"""Errors of the streams floor (the broker); the root `BeliefstreamError` is `beliefs.errors`.

    BeliefstreamError          (beliefs.errors)
    └── BrokerError            the embedded broker did not start
"""
from beliefs.errors import BeliefstreamError


class BrokerError(BeliefstreamError):
    """The embedded broker could not be started or reached."""
