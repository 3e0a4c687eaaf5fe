"""The worker group's consumer lag per partition of the turns topic, as a gauge.

Lag is the partition's end offset (the next offset a producer writes) minus the group's committed
offset (the next one the group reads); a partition the group never committed counts from its
start, so a stalled new deployment shows its whole backlog. Read without joining the group
(`ConsumerOffsets`), so every worker reports the same figures: dashboards take `max by (partition)`.
"""

from __future__ import annotations

import asyncio

from prometheus_client import Gauge

from agents.metrics import ingest_metrics
from agents.periodic import run_periodically
from launch.reaper import ConsumerOffsets
from streams.faust_app import bootstrap_servers
from streams.settings import Settings


def partition_lag(ends: dict[int, int], committed: dict[int, int | None], starts: dict[int, int]) -> dict[int, int]:
    """Records not yet committed, per partition (never negative)."""
    lag = {}
    for partition, end in ends.items():
        done = committed.get(partition)
        done = starts.get(partition, 0) if done is None or done < 0 else done
        lag[partition] = max(end - done, 0)
    return lag


class ConsumerLag:
    """One reading per call: sets `gauge{topic, partition}` for every partition of the topic."""

    def __init__(self, offsets: ConsumerOffsets, gauge: Gauge) -> None:
        self.offsets = offsets
        self.gauge = gauge

    async def __call__(self) -> dict[int, int]:
        ends = await self.offsets.ends()
        committed = await self.offsets.committed()
        starts = await self.offsets.starts() if any(v is None for v in committed.values()) else {}
        lag = partition_lag(ends, committed, starts)
        for partition, records in lag.items():
            self.gauge.labels(self.offsets.topic, str(partition)).set(records)
        return lag


async def watch_lag(settings: Settings, url: str, stop: asyncio.Event) -> None:
    """Read the lag every `BELIEFSTREAM_CONSUMER_LAG_INTERVAL_S` until `stop` is set."""
    offsets = ConsumerOffsets(bootstrap_servers(url), settings.app_id, settings.turns_topic)
    try:
        job = ConsumerLag(offsets, ingest_metrics().lag)
        await run_periodically(settings.consumer_lag_interval_s, job, stop, name="consumer lag")
    finally:
        await offsets.close()
