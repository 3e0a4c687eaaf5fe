"""The live layer: a real Tansu broker for the session, a worker per test with its own topics and group."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from streams.broker import EmbeddedBroker
from streams.settings import Settings

pytestmark = pytest.mark.integration


@pytest.fixture(scope="session")
def broker() -> Iterator[EmbeddedBroker]:
    with EmbeddedBroker() as running:
        yield running


@pytest.fixture
def settings(tmp_path: Path, isolated_sql_url: str, broker: EmbeddedBroker) -> Settings:
    """Settings of one test: its own topics, consumer group, data dir and database."""
    run = uuid.uuid4().hex[:8]
    return Settings(
        data_dir=tmp_path / "data",
        broker=broker.url,
        sql_url=isolated_sql_url,
        app_id=f"it-{run}",
        turns_topic=f"it-{run}.turns",
        dlq_topic=f"it-{run}.turns.dlq",
        events_topic=f"it-{run}.memory.events",
        audit_topic=f"it-{run}.recall.audit",
        escalations_topic=f"it-{run}.escalations",
        topic_partitions=2,
        batch_size=64,
        batch_within_s=0.1,
        sink_retry_initial_s=0.05,
        sink_retry_max_s=0.2,
    )
