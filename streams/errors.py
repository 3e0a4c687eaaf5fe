"""The root of every error beliefstream raises on purpose.

    BeliefstreamError
    ├── ConfigurationError            (streams)  settings that cannot work together
    ├── TurnRejected                  (agents)   a turn that goes to the DLQ, with its reason
    ├── ExtractorError                (agents)   the extractor failed; see agents.errors
    ├── EmbedderUnavailableError      (agents)   the embedding model is not installed
    ├── SinkError                     (sinks)    see sinks.errors
    │   ├── BackpressureError                    the destination is full: retry after `retry_after`
    │   └── SinkUnavailableError                 the destination cannot be reached
    ├── BrokerError                   (streams)  the embedded broker did not start
    └── SidecarError                  (sidecar)  HTTP-facing errors with a status and a code
"""


class BeliefstreamError(Exception):
    """Root of all beliefstream errors."""


class ConfigurationError(BeliefstreamError):
    """Settings that cannot work together (for example an unknown extractor)."""


class BrokerError(BeliefstreamError):
    """The embedded broker could not be started or reached."""
