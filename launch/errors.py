"""Errors of the process wiring (the CLI turns every `BeliefstreamError` into one clear line).

    BeliefstreamError          (beliefs.errors)
    ├── PublishInterrupted     the broker stopped acknowledging in the middle of a published file
    └── DataDirBusy            another `beliefstream dev` holds the data dir's lock
"""

from beliefs.errors import BeliefstreamError


class PublishInterrupted(BeliefstreamError):
    """The broker stopped acknowledging in the middle of a file."""


class DataDirBusy(BeliefstreamError):
    """Another `beliefstream dev` holds the data dir (its pid and start time are in the message)."""
