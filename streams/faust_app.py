"""The faust app: one per process, built from Settings and the broker URL in force."""

from __future__ import annotations

import faust

from streams.settings import Settings
from streams.transport import FetchBoundedTransport


class BeliefstreamApp(faust.App):
    """faust's App on the fetch-bounded Kafka transport (see streams.transport)."""

    fetch_max_wait_ms: int = 50

    def _new_transport(self) -> FetchBoundedTransport:
        return FetchBoundedTransport(self.conf.broker_consumer, self)


def broker_url(settings: Settings, embedded_url: str | None = None) -> str:
    """The broker URL: `BELIEFSTREAM_BROKER`, else the embedded broker's."""
    if settings.broker:
        return settings.broker
    if embedded_url is None:
        from beliefs.errors import ConfigurationError

        raise ConfigurationError(
            "no broker: set BELIEFSTREAM_BROKER=kafka://host:port, or run `beliefstream dev` "
            "which starts the embedded broker"
        )
    return embedded_url


def bootstrap_servers(url: str) -> str:
    """`kafka://a:1,b:2` (faust form) as `a:1,b:2` (aiokafka form)."""
    return ",".join(part.split("://", 1)[-1] for part in url.split(","))


def create_app(settings: Settings, url: str) -> faust.App:
    """A faust app whose state lives in the SQL store, not in faust tables."""
    web = {"web_enabled": False} if settings.worker_web_port is None else {"web_port": settings.worker_web_port}
    app = BeliefstreamApp(
        settings.app_id,
        broker=url,
        store="memory://",
        topic_partitions=settings.topic_partitions,
        topic_allow_declare=True,
        consumer_auto_offset_reset="earliest",
        producer_acks=-1,
        broker_session_timeout=settings.broker_session_timeout_s,
        broker_rebalance_timeout=settings.broker_rebalance_timeout_s,
        broker_heartbeat_interval=min(3.0, settings.broker_session_timeout_s / 3),
        stream_wait_empty=False,
        autodiscover=False,
        **web,
    )
    app.fetch_max_wait_ms = settings.broker_fetch_max_wait_ms
    return app
