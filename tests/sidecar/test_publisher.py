"""`TopicTurnPublisher` over a `RecordProducer`: what goes on the wire, and outages as 503s.

A scripted producer checks the mapping from turns to records and from `SinkUnavailableError` to
`Unavailable`, through the app as a client sees it; the live test runs the real
`KafkaRecordProducer` against the embedded broker and reads the turns back.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator, Sequence

import pytest
from integration.harness import read_topic

from beliefs.records import Role, Turn
from sidecar.errors import Unavailable
from sidecar.publisher import TopicTurnPublisher, TurnPublisher
from sinks.errors import SinkUnavailableError
from sinks.producer import KafkaRecordProducer, OutRecord
from streams.broker import EmbeddedBroker
from streams.settings import Settings

ACME = {"Authorization": "Bearer key-acme"}
BROKER_DOWN = "the broker did not acknowledge the turns; retry the same request"


class ScriptedProducer:
    """A `RecordProducer` that keeps every acknowledged batch; `outage` fails sends like a down broker."""

    def __init__(self) -> None:
        self.batches: list[list[OutRecord]] = []
        self.outage: SinkUnavailableError | None = None
        self.reachable = True

    async def send_many(self, records: Sequence[OutRecord]) -> None:
        if self.outage is not None:
            raise self.outage
        self.batches.append(list(records))

    async def ping(self) -> bool:
        return self.reachable


@pytest.fixture
def producer() -> ScriptedProducer:
    return ScriptedProducer()


@pytest.fixture
def publisher(producer, settings) -> TopicTurnPublisher:
    """The real publisher, so the sidecar's `client` fixture serves it over the scripted producer."""
    return TopicTurnPublisher(producer, settings.turns_topic)


def make_turn(turn_id: str, user_id: str = "u-1") -> Turn:
    return Turn(turn_id=turn_id, tenant_id="acme", user_id=user_id, role=Role.USER, text="I use vim.")


async def test_turns_go_out_as_one_batch_keyed_by_tenant_and_user(producer, publisher, settings):
    turns = [make_turn("t-1"), make_turn("t-2", user_id="u-2")]

    await publisher.publish(turns)

    [batch] = producer.batches
    assert [(record.topic, record.key) for record in batch] == [
        (settings.turns_topic, b"acme:u-1"),
        (settings.turns_topic, b"acme:u-2"),
    ]
    assert [Turn.model_validate_json(record.value) for record in batch] == turns
    assert isinstance(publisher, TurnPublisher)


async def test_an_unacknowledged_batch_is_unavailable(producer, publisher):
    producer.outage = SinkUnavailableError("publishing to the broker failed: KafkaTimeoutError")

    with pytest.raises(Unavailable) as raised:
        await publisher.publish([make_turn("t-1")])

    assert (raised.value.status, raised.value.message) == (503, BROKER_DOWN)
    assert raised.value.__cause__ is producer.outage


async def test_a_broker_outage_on_retain_is_503_naming_the_broker(client, producer):
    producer.outage = SinkUnavailableError("publishing to the broker failed: NodeNotReadyError")

    response = await client.post(
        "/v1/retain", json={"turn_id": "t-1", "user_id": "u-1", "role": "user", "text": "Hi"}, headers=ACME
    )

    assert response.status_code == 503
    assert response.json()["error"] == {"code": "unavailable", "message": BROKER_DOWN}


async def test_readiness_asks_the_producer(client, producer):
    assert (await client.get("/readyz")).json()["checks"]["broker"] == "ok"

    producer.reachable = False

    assert (await client.get("/readyz")).json()["checks"]["broker"] == "failed"


@pytest.fixture(scope="module")
def broker() -> Iterator[EmbeddedBroker]:
    with EmbeddedBroker() as running:
        yield running


@pytest.mark.integration
async def test_turns_reach_the_broker_and_a_stopped_producer_is_unavailable(broker):
    topic = f"publisher-{uuid.uuid4().hex[:8]}.turns"
    producer = KafkaRecordProducer(broker.bootstrap)
    publisher = TopicTurnPublisher(producer, topic)
    turns = [make_turn("t-1"), make_turn("t-2", user_id="u-2")]
    await producer.start()
    try:
        assert await publisher.ping() is True
        await publisher.publish(turns)
    finally:
        await producer.stop()

    records = await read_topic(Settings(broker=broker.url), topic, expect=len(turns))
    assert {key: Turn.model_validate_json(value) for key, value in records} == {
        b"acme:u-1": turns[0],
        b"acme:u-2": turns[1],
    }
    with pytest.raises(Unavailable):
        await publisher.publish(turns)
    assert await publisher.ping() is False


class HangingProducer(ScriptedProducer):
    """A broker that takes the connection and never answers."""

    async def send_many(self, records: Sequence[OutRecord]) -> None:
        await asyncio.sleep(3600)


async def test_a_broker_that_never_answers_is_a_503_within_the_ack_timeout():
    publisher = TopicTurnPublisher(HangingProducer(), "turns", ack_timeout_s=0.05)

    with pytest.raises(Unavailable):
        await asyncio.wait_for(publisher.publish([make_turn("t-hang")]), 5)


async def test_in_dev_a_broker_away_costs_no_wait_and_no_503_the_intake_keeps_the_turn(producer):
    """`dev` replays the intake whenever its broker is back, so the turn (already in SQL) is left to it."""
    replayed = asyncio.Event()
    publisher = TopicTurnPublisher(producer, "turns", ack_timeout_s=0.05, replayed=replayed)

    await publisher.publish([make_turn("t-away")])  # the broker is away: nothing is sent, nothing raised
    assert producer.batches == []

    replayed.set()
    await publisher.publish([make_turn("t-back")])
    assert [r.key for r in producer.batches[0]] == [b"acme:u-1"]

    producer.outage = SinkUnavailableError("the broker died just now")
    await publisher.publish([make_turn("t-died")])  # the supervisor will notice; the intake keeps it
    hanging = TopicTurnPublisher(HangingProducer(), "turns", ack_timeout_s=0.05, replayed=replayed)
    await asyncio.wait_for(hanging.publish([make_turn("t-slow")]), 5)
