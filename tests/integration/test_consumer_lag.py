"""The consumer-lag gauge on a real broker: turns published before any worker are lag on exactly
the partitions their keys went to; once a worker consumed and committed them, every partition reads 0."""

from __future__ import annotations

import pytest
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from integration.harness import publish, running_worker, wait_for
from prometheus_client import CollectorRegistry

from agents.metrics import IngestMetrics
from launch.lag import ConsumerLag
from launch.reaper import ConsumerOffsets
from streams.faust_app import bootstrap_servers
from streams.partitioner import partition_for, turn_key

pytestmark = pytest.mark.integration


async def test_lag_counts_unconsumed_turns_per_partition_until_a_worker_commits(settings, tenant: str) -> None:
    turns = [
        {"turn_id": f"t-{i}", "tenant_id": tenant, "user_id": f"u-{i % 3}", "role": "user", "text": f"I like tea number {i}."}
        for i in range(9)
    ]
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap_servers(settings.broker))
    await admin.start()
    try:
        await admin.create_topics([NewTopic(settings.turns_topic, settings.topic_partitions, 1)])
    finally:
        await admin.close()
    await publish(settings, turns)
    registry = CollectorRegistry()
    gauge = IngestMetrics(registry).lag
    offsets = ConsumerOffsets(bootstrap_servers(settings.broker), settings.app_id, settings.turns_topic)
    lag = ConsumerLag(offsets, gauge)
    try:
        before = await lag()
        # offsets, not records: Kafka numbers each record, the embedded broker may number a batch once
        written = {partition_for(turn_key(tenant, t["user_id"]), settings.topic_partitions) for t in turns}
        assert set(before) == set(range(settings.topic_partitions))
        assert {p for p, n in before.items() if n} == written  # the tenant is random: so is the spread
        partition = str(next(p for p, n in before.items() if n))
        assert registry.get_sample_value(
            "beliefstream_consumer_lag", {"topic": settings.turns_topic, "partition": partition}
        ) == before[int(partition)]

        async with running_worker(settings):

            async def caught_up() -> bool:
                return sum((await lag()).values()) == 0

            await wait_for(caught_up, timeout=90, what="the worker group to commit every turn")
    finally:
        await offsets.close()
