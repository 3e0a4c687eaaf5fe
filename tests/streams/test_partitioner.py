"""The turns' partitioner: the one aiokafka producers use, hence Kafka's (murmur2)."""

from __future__ import annotations

import random

import pytest
from aiokafka.partitioner import DefaultPartitioner, murmur2

from streams.partitioner import partition_for, turn_key


def test_murmur2_is_kafkas() -> None:
    """Values of the Java client's `Utils.murmur2` (Kafka's UtilsTest), read as unsigned."""
    assert murmur2(b"21") == -973932308 % 2**32
    assert murmur2(b"foobar") == -790332482 % 2**32


def test_a_key_goes_where_the_producers_send_it() -> None:
    partitioner = DefaultPartitioner()
    rng = random.Random(7)
    for _ in range(2000):
        key = turn_key(f"t{rng.randrange(50)}", f"user-{rng.random()}")
        partitions = rng.randint(1, 24)
        every = list(range(partitions))
        assert partition_for(key, partitions) == partitioner(key, every, every)


def test_a_users_turns_share_one_partition_and_users_spread() -> None:
    assert turn_key("acme", "u:1") == b"acme:u:1"
    assert len({partition_for(turn_key("acme", f"u{i}"), 4) for i in range(100)}) == 4


def test_a_topic_has_partitions() -> None:
    with pytest.raises(ValueError, match="at least one"):
        partition_for(b"acme:u1", 0)
