"""faust's Kafka transport with one knob it hard-codes: how long a fetch may wait for data.

faust asks for `fetch_max_wait_ms=1500`. Kafka answers a fetch as soon as data arrives, but
brokers that answer a long poll only at its deadline (the embedded Tansu does) then add up to
1.5 s to every turn's latency. The app's `fetch_max_wait_ms` (a setting) bounds that wait.
"""

from __future__ import annotations

from typing import Any

from faust.transport.drivers import aiokafka as driver

DEFAULT_FETCH_MAX_WAIT_MS = 50


class FetchBoundedConsumerThread(driver.AIOKafkaConsumerThread):
    def _create_worker_consumer(self, transport: Any) -> Any:
        consumer = super()._create_worker_consumer(transport)
        wait = getattr(self.app, "fetch_max_wait_ms", DEFAULT_FETCH_MAX_WAIT_MS)
        consumer._fetch_max_wait_ms = wait  # read by AIOKafkaConsumer.start()
        return consumer


class FetchBoundedConsumer(driver.Consumer):
    def _new_consumer_thread(self) -> driver.AIOKafkaConsumerThread:
        return FetchBoundedConsumerThread(self, loop=self.loop, beacon=self.beacon)


class FetchBoundedTransport(driver.Transport):
    Consumer = FetchBoundedConsumer
