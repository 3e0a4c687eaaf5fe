"""The one Settings class: every knob, read from `BELIEFSTREAM_*` in the entry points only."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from beliefs.errors import ConfigurationError


class Settings(BaseSettings):
    """Configuration of every process. Built once in an entry point and passed down."""

    model_config = SettingsConfigDict(env_prefix="BELIEFSTREAM_", frozen=True, extra="ignore")

    # where things live
    data_dir: Path = Path(".beliefstream")
    broker: str | None = Field(
        default=None, description="kafka://host:port[,host:port]; unset = the embedded broker"
    )
    sql_url: str | None = Field(default=None, description="unset = SQLite under data_dir")
    sqlite_read_threads: int = Field(
        default=0, ge=0, description="threads for recall's SQLite reads; 0 = on the event loop (fastest in memory)"
    )
    qdrant_url: str | None = Field(default=None, description="unset = embedded Qdrant Edge under data_dir")
    qdrant_api_key: SecretStr | None = None
    qdrant_collection: str = "beliefstream_memories"
    vector_projector: Literal["on", "off"] = Field(
        default="on", description="whether this process projects the SQL vector outbox into the index; off = "
        "SQL only, and an embedded Qdrant Edge shard is not opened (its single owner projects)"
    )
    vector_projector_poll_s: float = Field(default=1.0, gt=0, description="how often the projector looks without a nudge")

    # topics
    app_id: str = "beliefstream"
    turns_topic: str = "beliefstream.turns"
    dlq_topic: str = "beliefstream.turns.dlq"
    events_topic: str = "beliefstream.memory.events"
    audit_topic: str = "beliefstream.recall.audit"
    escalations_topic: str = "beliefstream.escalations"
    topic_partitions: int = 4
    broker_session_timeout_s: float = 10.0
    broker_rebalance_timeout_s: float = 3.0
    broker_ack_timeout_s: float = Field(
        default=10.0, gt=0, description="longest a publish waits for the broker's acknowledgement before it gives "
        "up: `beliefstream publish` then exits with one line, `/v1/retain` of `dev` leaves the turn to the intake"
    )
    broker_fetch_max_wait_ms: int = Field(default=50, ge=1, description="longest a fetch waits for data")
    worker_web_port: int | None = Field(default=None, description="faust's own web port; unset = off")
    worker_metrics_port: int | None = Field(
        default=None, ge=1, le=65535, description="a standalone worker's Prometheus /metrics port; unset = off"
    )

    # the write path
    extractor: Literal["rules", "anthropic"] = "rules"
    reflect_answerer: Literal["extractive", "anthropic"] = Field(
        default="extractive", description="anthropic: /v1/reflect answers with Claude (needs the API key)"
    )
    anthropic_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("BELIEFSTREAM_ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY")
    )
    anthropic_base_url: str | None = None
    anthropic_model: str = "claude-haiku-4-5-20251001"
    anthropic_timeout_s: float = 20.0
    anthropic_max_retries: int = 3
    extraction_context_turns: int = Field(
        default=6, ge=0, description="Claude extraction: preceding turns of the session sent with a turn"
    )
    extraction_context_tokens: int = Field(
        default=600, ge=0, description="Claude extraction: token bound of those preceding turns"
    )
    extraction_group_turns: bool = Field(
        default=True, description="Claude extraction: one request for a session's turns of a batch when cheaper"
    )
    extraction_belief_tokens: int = Field(
        default=600, ge=0, description="Claude extraction: token bound of the current beliefs sent with a turn"
    )
    batch_size: int = 256
    batch_within_s: float = 0.1
    ingest_lookahead_batches: int = Field(default=2, ge=1, description="batches read ahead of the one being written")
    max_turn_bytes: int = 64 * 1024
    strip_patterns: list[str] = Field(default_factory=list, description="extra regexes of injected blocks")
    embed_threads: int = 2
    embed_niceness: int = Field(
        default=5,
        ge=0,
        le=19,
        description="how far below the event loop's CPU priority the query model's threads run (Linux), so "
        "a busy loop is not kept off a core by the model; 0 = the same (on a box shared with other busy work)",
    )
    embed_batch_size: int = 64
    ingest_embedder: Literal["process", "thread"] = Field(
        default="process", description="the worker's model: in a child process (no GIL shared) or a thread"
    )
    ingest_embed_processes: int = Field(default=2, ge=1, description="the worker's model processes (one per core)")
    ingest_embed_threads: int = Field(default=1, ge=1, description="threads of each of those processes")
    episode_retention_days: float = Field(
        default=0.0, ge=0, description="days an episode (a turn kept as said) is kept after it was said; 0 = forever"
    )
    episode_vector: Literal["joined", "line_sum"] = Field(
        default="joined", description="how an episode's vector is made (write path and imports): joined = its line "
        "and the previous turn's embedded as one text; line_sum = each line embedded once, the two vectors summed "
        "and normalised (cheaper ingest, lower LoCoMo recall: docs/benchmarks.md, Ingest)",
    )
    episode_context_sessions: int = Field(
        default=10_000, ge=0,
        description="sessions whose last turn a worker remembers, so the next episode's vector carries that "
        "turn's line with its own; 0 = each episode's vector from its own line only",
    )
    sink_retry_initial_s: float = 0.5
    # the intake: accepted turns kept in SQL until processed (sinks/sql/intake.py, launch/reaper.py)
    intake_republish_on_start: bool | None = Field(
        default=None, description="re-publish every pending turn at worker start; unset = with the embedded broker"
    )
    intake_reap_interval_s: float = Field(default=30.0, gt=0, description="how often the reaper looks")
    intake_requeue_after_s: float = Field(
        default=120.0, ge=0, description="a turn queued this long after its publication, once the consumer has "
        "caught up past it, is re-published"
    )
    intake_max_attempts: int = Field(default=3, ge=1, description="re-publications before the job fails with a reason")
    sink_retry_max_s: float = 30.0

    # the manage phase: decay scoring and consolidation
    decay_lambda: float = Field(default=0.02, ge=0, description="per day; ln 2 / 0.02 = a 34.7-day half-life")
    decay_boost_cap: float = Field(default=10.0, gt=0, description="accesses that give full decay protection")
    decay_interval_s: float = Field(
        default=3600.0, gt=0, description="the slow sweep: every user of a worker's partitions decay-scored"
    )
    maintenance_window_s: float = Field(
        default=3600.0, gt=0, description="tumbling window: users who wrote in one are maintained when it closes"
    )
    maintenance_tick_s: float = Field(
        default=30.0, gt=0, description="how often a worker looks for closed windows (and their grace)"
    )
    decay_batch_size: int = Field(default=5000, ge=1)
    periodic_retry_initial_s: float = Field(
        default=5.0, gt=0, description="a failed periodic job (decay sweep, windows, reaper, ...) runs again after "
        "this long, doubling while it keeps failing"
    )
    periodic_retry_max_s: float = Field(default=300.0, gt=0, description="the longest of those waits")
    keyword_merge_interval_s: float = Field(
        default=3600.0, gt=0, description="how often a worker merges the keyword indexes' segments (SQLite FTS5)"
    )
    keyword_merge_pages: int = Field(
        default=50, ge=1, description="pages merged per step; each step is one short write transaction"
    )
    loop_threshold: int = Field(default=3, ge=2, description="supersessions of one attribute that make a loop")
    loop_window_days: float = Field(default=30.0, gt=0, description="...within this many days")
    consolidation_threshold: float = Field(default=0.85, gt=0, le=1, description="cosine similarity")
    consolidation_interval_s: float = Field(
        default=7 * 24 * 3600.0, gt=0, description="the worker's consolidation pass: weekly by default"
    )
    consolidation_enabled: bool = Field(
        default=True, description="false: the worker never consolidates (the route, CLI and MCP tool still do)"
    )
    consolidation_dry_run_first: bool = Field(
        default=True,
        description="the first scheduled pass only previews (diff kept under data_dir/consolidation); later ones apply",
    )

    # the sidecar
    recall_preset: Literal["balanced", "precise", "recent"] = "balanced"
    host: str = "127.0.0.1"
    port: int = 8080
    api_keys: str | None = Field(
        default=None, description="key=tenant[:agent][/cap+cap], comma-separated; capabilities: sidecar/auth.py"
    )
    max_body_bytes: int = 1024 * 1024
    rate_limit_per_s: float = Field(default=200.0, gt=0, description="requests per second per API key")
    rate_limit_burst: int = Field(default=400, ge=1, description="requests an idle key may make at once")
    api_docs_ui: bool = Field(
        default=False,
        description="serve /docs and /redoc (pages that load their scripts from a CDN, where one pastes an API "
        "key); /openapi.json is always served, without a key",
    )

    # webhooks: memory events POSTed, signed, to platforms that do not read Kafka
    webhook_urls: list[str] = Field(
        default_factory=list, description='JSON list of URLs that receive every memory event, e.g. ["https://..."]'
    )
    webhook_secret: SecretStr | None = Field(default=None, description="HMAC-SHA256 key of the signatures")
    webhook_max_attempts: int = Field(default=10, ge=1, description="attempts before a delivery is failed")
    webhook_retry_initial_s: float = Field(default=1.0, gt=0, description="first retry delay; doubles each time")
    webhook_retry_max_s: float = Field(default=600.0, gt=0)
    webhook_timeout_s: float = Field(default=10.0, gt=0)
    webhook_poll_s: float = Field(default=1.0, gt=0)
    event_relay_interval_s: float = Field(
        default=1.0, gt=0, description="how often the worker publishes events the sidecar wrote between batches"
    )

    # telemetry: logs, traces, the consumer-lag gauge (docs/operations.md)
    log_format: Literal["json", "console"] = Field(default="json", description="JSON lines, or for a terminal")
    log_text: Literal["off", "on"] = Field(
        default="off", description="on: logs may quote turn text and error messages (debugging only)"
    )
    log_digest_key: SecretStr | None = Field(default=None, description="key of the user_digest field of log lines")
    tracing: Literal["off", "on"] = Field(default="off", description="on: OpenTelemetry spans, exporter from OTEL_*")
    consumer_lag_interval_s: float = Field(default=15.0, gt=0, description="how often the worker reads its lag")

    @field_validator("webhook_urls")
    @classmethod
    def _http_urls(cls, urls: list[str]) -> list[str]:
        for url in urls:
            if not url.startswith(("http://", "https://")):
                raise ValueError(f"webhook URL {url!r} must start with http:// or https://")
        return urls

    @model_validator(mode="after")
    def _signed_webhooks(self) -> Settings:
        if self.webhook_urls and self.webhook_secret is None:
            raise ValueError("BELIEFSTREAM_WEBHOOK_URLS needs BELIEFSTREAM_WEBHOOK_SECRET: deliveries are signed")
        return self

    @field_validator("topic_partitions", "batch_size", "embed_threads", "embed_batch_size")
    @classmethod
    def _positive(cls, value: int) -> int:
        if value < 1:
            raise ValueError("must be at least 1")
        return value

    @property
    def resolved_sql_url(self) -> str:
        """The SQL URL in force: the configured one, else SQLite under data_dir."""
        if self.sql_url:
            return self.sql_url
        return f"sqlite+aiosqlite:///{(self.data_dir / 'memory.db').as_posix()}"

    @property
    def vectors_path(self) -> Path:
        """Where the embedded Qdrant Edge shard lives."""
        return self.data_dir / "vectors"

    def parsed_api_keys(self) -> dict[str, tuple[str, str | None]]:
        """`key=tenant[:agent][/cap+cap]` entries as {key: (tenant, agent)} (capabilities left out)."""
        return {key: (tenant, agent) for key, (tenant, agent, _) in self.parsed_api_key_grants().items()}

    def parsed_api_key_grants(self) -> dict[str, tuple[str, str | None, tuple[str, ...] | None]]:
        """`key=tenant[:agent][/cap+cap]` entries as {key: (tenant, agent, capability names or None)}.

        None means the entry names no capabilities (the defaults of `sidecar.auth` apply); the names
        are checked there.
        """
        if not self.api_keys:
            return {}
        keys: dict[str, tuple[str, str | None, tuple[str, ...] | None]] = {}
        for item in self.api_keys.split(","):
            item = item.strip()
            if not item:
                continue
            key, sep, grant = item.partition("=")
            scope, slash, names = grant.strip().partition("/")
            capabilities = tuple(n.strip() for n in names.split("+") if n.strip()) if slash else None
            if not sep or not key.strip() or not scope.strip() or capabilities == ():
                raise ConfigurationError(
                    f"BELIEFSTREAM_API_KEYS entry {item!r} is not of the form key=tenant[:agent][/cap+cap]"
                )
            tenant, _, agent = scope.strip().partition(":")
            keys[key.strip()] = (tenant, agent or None, capabilities)
        return keys
