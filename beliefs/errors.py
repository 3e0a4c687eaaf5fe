"""The root of every error beliefstream raises on purpose, and the errors of the belief model.

    BeliefstreamError
    ├── ConfigurationError                 settings or parameters that cannot work together
    │   └── (reading.errors)  StripPatternError
    ├── (streams.errors)      BrokerError: BrokerNotAnswering
    ├── (sinks.errors)        SinkError: BackpressureError, SinkUnavailableError, NotFoundError,
    │                         and (sinks.sql.errors) InvalidRequestError and its kinds
    ├── (embedding.errors)    EmbedderUnavailableError
    ├── (llm.errors)          ExtractorError, LlmCallError, ResponseSchemaError
    ├── (agents.consolidate.errors)  ConsolidationError: InvalidThresholdError, MergeFailedError
    ├── (sidecar.errors)      SidecarError (HTTP-facing, with a status and a code), ReflectAnswerError
    ├── (sidecar.recall.errors)      RecallError: UnknownPresetError
    └── (launch.errors)       PublishInterrupted, DataDirBusy
"""


class BeliefstreamError(Exception):
    """Root of all beliefstream errors."""


class ConfigurationError(BeliefstreamError):
    """Settings that cannot work together (for example an unknown extractor)."""
