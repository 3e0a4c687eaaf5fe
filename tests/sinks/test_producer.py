"""`KafkaRecordProducer` outside its started life: each failure is a `SinkUnavailableError` at once."""

from __future__ import annotations

import gc
import warnings

import pytest

from sinks.errors import SinkUnavailableError
from sinks.producer import KafkaRecordProducer, OutRecord
from streams.broker import free_port

RECORD = OutRecord(topic="beliefstream.turns", key=b"acme:u-1", value=b"{}")


async def test_an_unreachable_broker_fails_the_start_and_closes_the_client():
    producer = KafkaRecordProducer(f"127.0.0.1:{free_port()}")

    with pytest.raises(SinkUnavailableError):
        await producer.start()

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        del producer
        gc.collect()
    assert not [w for w in caught if "Unclosed AIOKafkaProducer" in str(w.message)]


async def test_an_unstarted_producer_fails_sends_at_once_and_is_not_reachable():
    producer = KafkaRecordProducer(f"127.0.0.1:{free_port()}")

    with pytest.raises(SinkUnavailableError):
        await producer.send_many([RECORD])
    assert await producer.ping() is False

    await producer.stop()
    await producer.stop()  # safe without a start, and twice
