"""The root of every error beliefstream raises on purpose, and the errors of the belief model.

    BeliefstreamError
    ├── ConfigurationError            settings or parameters that cannot work together
    ├── (streams.errors)  BrokerError
    ├── (agents.errors)   TurnRejected, ExtractorError, EmbedderUnavailableError, ...
    ├── (sinks.errors)    SinkError: BackpressureError, SinkUnavailableError, ...
    └── (sidecar.errors)  SidecarError: HTTP-facing errors with a status and a code
"""

class BeliefstreamError(Exception):
    """Root of all beliefstream errors."""


class ConfigurationError(BeliefstreamError):
    """Settings that cannot work together (for example an unknown extractor)."""
