"""Which partition a turn's key lands in: the producers' own partitioner, named once.

Every producer of turns (`beliefstream publish`, the sidecar's publisher, the intake reaper) is an
aiokafka producer without an explicit partition, so a key goes where aiokafka's
`DefaultPartitioner` sends it: murmur2 of the key bytes, sign bit cleared, modulo the partition
count (Kafka's Java client does the same). A worker that owns partition p therefore owns every
`tenant:user` key this function maps to p.
"""

from __future__ import annotations

from aiokafka.partitioner import murmur2


def turn_key(tenant_id: str, user_id: str) -> bytes:
    """The key of a user's turns: `tenant:user` (one user's turns share a partition, so keep their order)."""
    return f"{tenant_id}:{user_id}".encode("utf-8", errors="replace")


def partition_for(key: bytes, partitions: int) -> int:
    """The partition the producers' partitioner picks for `key` among `partitions`."""
    if partitions < 1:
        raise ValueError(f"a topic has at least one partition, got {partitions}")
    return (murmur2(key) & 0x7FFFFFFF) % partitions
