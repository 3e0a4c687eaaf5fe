"""Errors of the streams floor (the broker); the root `BeliefstreamError` is `beliefs.errors`.

    BeliefstreamError          (beliefs.errors)
    └── BrokerError            the embedded broker did not start
        └── BrokerNotAnswering a publish got no acknowledgement within `broker_ack_timeout_s`
"""
from beliefs.errors import BeliefstreamError


class BrokerError(BeliefstreamError):
    """The embedded broker could not be started or reached."""


class BrokerNotAnswering(BrokerError):
    """The broker acknowledged nothing within the time allowed, or the connection failed."""
