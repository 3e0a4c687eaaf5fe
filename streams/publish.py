"""Publishing turns from a JSON-lines file (`beliefstream publish`), with a progress bar.

Every line goes out and none stops the run: a line that is not a turn is published as it is and
the pipeline sends it to the DLQ with the reason; a line too large for the broker goes straight
to the DLQ (its start kept, with the reason), since the turns topic could never carry it.
A broker that stops answering stops the run within `broker_ack_timeout_s` (`BrokerNotAnswering`):
each chunk must be acknowledged within it, and the producer is not waited for longer at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from aiokafka import AIOKafkaProducer
from aiokafka.errors import KafkaError
from tqdm import tqdm

from beliefs.records import DeadLetter
from reading.dead_letter import dead_letter, kafka_key
from streams.errors import BrokerNotAnswering
from streams.faust_app import bootstrap_servers
from streams.settings import Settings

CHUNK = 1000
#: The producer's request limit (aiokafka's default); a longer line cannot be published as a turn.
MAX_RECORD_BYTES = 1024 * 1024
#: How much of a too-large line its dead letter keeps.
DEAD_LETTER_KEEP_BYTES = 4096


@dataclass(frozen=True)
class PublishResult:
    sent: int
    unparsed: int  # lines that were not JSON objects; published as they are, for the DLQ
    kept: int = 0  # turns kept in the SQL intake of a running `dev` (launch.durable_publish)
    dead_lettered: int = 0  # lines too large for the turns topic, sent to the DLQ directly


def keyed_line(line: bytes, tenant: str | None) -> tuple[bytes | None, bytes, bool]:
    """(key, value, parsed): a turn keyed `tenant:user`; a line that is not a JSON object goes as is."""
    try:
        document = json.loads(line)
    except (ValueError, RecursionError):  # not JSON, not UTF-8, too deep, an unreadable number
        return None, line, False
    if not isinstance(document, dict):
        return None, line, False
    if tenant and not document.get("tenant_id"):
        document["tenant_id"] = tenant
        line = json.dumps(document, ensure_ascii=True).encode()  # a lone surrogate stays escaped
    tenant_id, user_id = document.get("tenant_id"), document.get("user_id")
    if not (isinstance(tenant_id, str) and isinstance(user_id, str)):
        return None, line, True
    return f"{tenant_id}:{user_id}".encode("utf-8", errors="replace"), line, True


def too_large_letter(line: bytes, key: bytes | None, topic: str) -> DeadLetter:
    """The dead letter of a line the broker could not carry: why, and how it began (secrets redacted)."""
    letter = dead_letter(
        "too_large",
        f"the line is {len(line)} bytes; a turn record is at most {MAX_RECORD_BYTES} bytes",
        line,
        key,
        topic=topic,
        keep_bytes=DEAD_LETTER_KEEP_BYTES,
    )
    return letter


def _lines(path: Path) -> Iterator[bytes]:
    with path.open("rb") as handle:
        for line in handle:
            line = line.rstrip(b"\r\n")
            if line.strip():
                yield line


def bounded_producer(bootstrap: str, ack_timeout_s: float) -> AIOKafkaProducer:
    """An acks=all producer whose requests (metadata included) give up after `ack_timeout_s`."""
    timeout_ms = max(1000, int(ack_timeout_s * 1000))
    return AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5, request_timeout_ms=timeout_ms)


def _retrieved(future: asyncio.Future) -> None:
    """Read a delivery's outcome, so one a timeout left behind is not logged as never retrieved."""
    if not future.cancelled():
        future.exception()


async def send_chunk(producer: AIOKafkaProducer, topic: str, records: Iterable[tuple[bytes | None, bytes]]) -> None:
    """Send (key, value) pairs and wait until the broker acknowledged every one."""
    futures = []
    for key, value in records:
        future = await producer.send(topic, key=key, value=value)
        future.add_done_callback(_retrieved)
        futures.append(future)
    await asyncio.gather(*futures)


async def acknowledged(step: Awaitable[object], ack_timeout_s: float) -> None:
    """Await `step` (sends and their acknowledgements) for at most `ack_timeout_s`."""
    try:
        await asyncio.wait_for(step, ack_timeout_s)
    except TimeoutError as exc:
        raise BrokerNotAnswering(f"no acknowledgement within {ack_timeout_s:g}s") from exc
    except (KafkaError, OSError) as exc:
        raise BrokerNotAnswering(str(exc) or type(exc).__name__) from exc


async def stop_within(producer: AIOKafkaProducer, ack_timeout_s: float) -> None:
    """Stop the producer; a broker that no longer answers does not keep us waiting past the timeout."""
    with contextlib.suppress(TimeoutError, KafkaError, OSError):
        await asyncio.wait_for(producer.stop(), ack_timeout_s)


async def publish_records(
    records: Iterable[tuple[bytes | None, bytes]],
    bootstrap: str,
    topic: str,
    progress: tqdm | None = None,
    ack_timeout_s: float = 10.0,
) -> int:
    """Send (key, value) pairs with acks=all, in chunks; returns how many were acknowledged.
    Raises `BrokerNotAnswering` when a chunk is not acknowledged within `ack_timeout_s`."""
    producer = bounded_producer(bootstrap, ack_timeout_s)
    sent = 0
    try:
        await acknowledged(producer.start(), ack_timeout_s)
        chunk: list[tuple[bytes | None, bytes]] = []
        for record in records:
            chunk.append(record)
            if len(chunk) >= CHUNK:
                await acknowledged(send_chunk(producer, topic, chunk), ack_timeout_s)
                sent += len(chunk)
                if progress is not None:
                    progress.update(len(chunk))
                chunk = []
        await acknowledged(send_chunk(producer, topic, chunk), ack_timeout_s)
        sent += len(chunk)
        if progress is not None:
            progress.update(len(chunk))
    except BrokerNotAnswering as exc:
        raise BrokerNotAnswering(
            f"the broker at {bootstrap} stopped answering after {sent} acknowledged lines ({exc}); "
            "running the same command again is safe (no turn is processed twice)"
        ) from exc
    finally:
        await stop_within(producer, ack_timeout_s)
    return sent


async def publish_file(
    path: Path, settings: Settings, url: str, tenant: str | None = None, show_progress: bool = False
) -> PublishResult:
    """Publish every non-empty line of `path` to the turns topic."""
    total = sum(1 for _ in _lines(path))
    unparsed = 0
    dead: list[tuple[bytes | None, bytes]] = []

    def records() -> Iterator[tuple[bytes | None, bytes]]:
        nonlocal unparsed
        for line in _lines(path):
            key, value, parsed = keyed_line(line, tenant)
            if len(value) + len(key or b"") > MAX_RECORD_BYTES - 1024:  # headroom for the batch header
                letter = too_large_letter(value, key, settings.turns_topic)
                dead.append((kafka_key(letter), letter.model_dump_json().encode()))
                continue
            unparsed += not parsed
            yield key, value

    bootstrap = bootstrap_servers(url)
    with tqdm(total=total, unit="turn", desc="publishing", disable=not show_progress) as progress:
        sent = await publish_records(
            records(), bootstrap, settings.turns_topic, progress, settings.broker_ack_timeout_s
        )
        if dead:
            await publish_records(dead, bootstrap, settings.dlq_topic, progress, settings.broker_ack_timeout_s)
    return PublishResult(sent=sent, unparsed=unparsed, dead_lettered=len(dead))
