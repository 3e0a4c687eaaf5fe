"""Errors of the sinks.

    BeliefstreamError
    └── SinkError
        ├── BackpressureError      the destination is full; retry after `retry_after` seconds
        ├── SinkUnavailableError   the destination cannot be reached; retry with backoff
        ├── NotFoundError          a read asked for something that is not there (or not in scope)
        └── ExportFormatError      a line of an import file is not part of a beliefstream export
"""

from beliefs.errors import BeliefstreamError


class SinkError(BeliefstreamError):
    """A sink failed; the batch is not acknowledged and its offsets are not committed."""


class BackpressureError(SinkError):
    """The destination is full or throttling: try the same batch again after `retry_after` seconds."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class SinkUnavailableError(SinkError):
    """The destination cannot be reached right now; the same batch is retried with backoff."""


class NotFoundError(SinkError):
    """Nothing with that id in the caller's scope."""


class ExportFormatError(SinkError):
    """A line of an import file is not part of a beliefstream export (the message names the line)."""
