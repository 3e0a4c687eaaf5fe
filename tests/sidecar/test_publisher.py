"""`KafkaTurnPublisher` over a stand-in producer: keys, values, acks=all, and outages as 503s.

The live-broker path is covered by the integration tests; here aiokafka's producer is replaced so
the mapping from turns to records and from Kafka errors to `Unavailable` is checked in isolation.
"""

from __future__ import annotations

import asyncio

import pytest
from aiokafka.errors import KafkaConnectionError, KafkaTimeoutError

import sidecar.publisher as publisher_module
from sidecar.errors import Unavailable
from sidecar.publisher import KafkaTurnPublisher, TurnPublisher
from streams.records import Role, Turn


class StandInProducer:
    """Records what aiokafka's producer was built with and sent; fails on demand."""

    instances: list[StandInProducer] = []
    fail_start: Exception | None = None  # set on the class: the producer is built inside start()

    def __init__(self, **config) -> None:
        self.config = config
        self.sent: list[tuple[str, bytes, bytes]] = []
        self.fail_delivery: Exception | None = None
        self.metadata_error: Exception | None = None
        self.started = self.stopped = False
        self.client = self
        StandInProducer.instances.append(self)

    async def start(self) -> None:
        if self.fail_start is not None:
            raise self.fail_start
        self.started = True

    async def stop(self) -> None:
        self.stopped = True

    async def send(self, topic: str, value: bytes, key: bytes) -> asyncio.Future:
        self.sent.append((topic, key, value))
        delivered: asyncio.Future = asyncio.get_running_loop().create_future()
        if self.fail_delivery is not None:
            delivered.set_exception(self.fail_delivery)
        else:
            delivered.set_result(None)
        return delivered

    async def fetch_all_metadata(self) -> object:
        if self.metadata_error is not None:
            raise self.metadata_error
        return object()


@pytest.fixture
def producers(monkeypatch) -> list[StandInProducer]:
    StandInProducer.instances = []
    monkeypatch.setattr(publisher_module, "AIOKafkaProducer", StandInProducer)
    return StandInProducer.instances


def make_turn(turn_id: str, user_id: str = "u-1") -> Turn:
    return Turn(turn_id=turn_id, tenant_id="acme", user_id=user_id, role=Role.USER, text="I use vim.")


async def test_turns_are_sent_keyed_by_tenant_and_user_with_acks_all(producers):
    publisher = KafkaTurnPublisher("kafka://broker-0:9092,broker-1:9092", "beliefstream.turns")
    await publisher.start()
    turns = [make_turn("t-1"), make_turn("t-2", user_id="u-2")]

    await publisher.publish(turns)

    [producer] = producers
    assert producer.config == {"bootstrap_servers": "broker-0:9092,broker-1:9092", "acks": "all"}
    assert [(topic, key) for topic, key, _ in producer.sent] == [
        ("beliefstream.turns", b"acme:u-1"),
        ("beliefstream.turns", b"acme:u-2"),
    ]
    assert [Turn.model_validate_json(value) for _, _, value in producer.sent] == turns
    await publisher.stop()
    assert producer.stopped
    assert isinstance(publisher, TurnPublisher)


async def test_undelivered_turns_are_unavailable(producers):
    publisher = KafkaTurnPublisher("broker:9092", "beliefstream.turns")
    await publisher.start()
    producers[0].fail_delivery = KafkaTimeoutError()

    with pytest.raises(Unavailable) as raised:
        await publisher.publish([make_turn("t-1")])

    assert raised.value.status == 503


async def test_publishing_before_start_is_unavailable(producers):
    with pytest.raises(Unavailable):
        await KafkaTurnPublisher("broker:9092", "beliefstream.turns").publish([make_turn("t-1")])


async def test_unreachable_broker_at_start_is_unavailable_and_cleaned_up(producers, monkeypatch):
    monkeypatch.setattr(StandInProducer, "fail_start", KafkaConnectionError("no route to host"))
    publisher = KafkaTurnPublisher("broker:9092", "beliefstream.turns")

    with pytest.raises(Unavailable):
        await publisher.start()

    assert producers[0].stopped
    assert await publisher.ping() is False


async def test_ping_reflects_cluster_metadata(producers):
    publisher = KafkaTurnPublisher("broker:9092", "beliefstream.turns")
    assert await publisher.ping() is False  # not started

    await publisher.start()
    assert await publisher.ping() is True

    producers[0].metadata_error = KafkaConnectionError("gone")
    assert await publisher.ping() is False
