"""Publishing turns from a JSON-lines file (`beliefstream publish`), with a progress bar."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from aiokafka import AIOKafkaProducer
from tqdm import tqdm

from streams.app import bootstrap_servers
from streams.settings import Settings

CHUNK = 1000


@dataclass(frozen=True)
class PublishResult:
    sent: int
    unparsed: int  # lines that were not JSON objects; published as they are, for the DLQ
    kept: int = 0  # turns kept in the SQL intake of a running `dev` (streams.durable_publish)


def keyed_line(line: bytes, tenant: str | None) -> tuple[bytes | None, bytes, bool]:
    """(key, value, parsed): a turn keyed `tenant:user`; a line that is not a JSON object goes as is."""
    try:
        document = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None, line, False
    if not isinstance(document, dict):
        return None, line, False
    if tenant and not document.get("tenant_id"):
        document["tenant_id"] = tenant
        line = json.dumps(document, ensure_ascii=False).encode()
    tenant_id, user_id = document.get("tenant_id"), document.get("user_id")
    key = f"{tenant_id}:{user_id}".encode() if isinstance(tenant_id, str) and isinstance(user_id, str) else None
    return key, line, True


def _lines(path: Path) -> Iterator[bytes]:
    with path.open("rb") as handle:
        for line in handle:
            line = line.rstrip(b"\r\n")
            if line.strip():
                yield line


async def publish_records(
    records: Iterable[tuple[bytes | None, bytes]], bootstrap: str, topic: str, progress: tqdm | None = None
) -> int:
    """Send (key, value) pairs with acks=all, in chunks; returns how many were acknowledged."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5)
    await producer.start()
    sent = 0
    try:
        pending: list[asyncio.Future] = []
        for key, value in records:
            pending.append(await producer.send(topic, key=key, value=value))
            if len(pending) >= CHUNK:
                await asyncio.gather(*pending)
                sent += len(pending)
                if progress is not None:
                    progress.update(len(pending))
                pending = []
        await asyncio.gather(*pending)
        sent += len(pending)
        if progress is not None:
            progress.update(len(pending))
    finally:
        await producer.stop()
    return sent


async def publish_file(
    path: Path, settings: Settings, url: str, tenant: str | None = None, show_progress: bool = False
) -> PublishResult:
    """Publish every non-empty line of `path` to the turns topic."""
    total = sum(1 for _ in _lines(path))
    unparsed = 0

    def records() -> Iterator[tuple[bytes | None, bytes]]:
        nonlocal unparsed
        for line in _lines(path):
            key, value, parsed = keyed_line(line, tenant)
            unparsed += not parsed
            yield key, value

    with tqdm(total=total, unit="turn", desc="publishing", disable=not show_progress) as progress:
        sent = await publish_records(records(), bootstrap_servers(url), settings.turns_topic, progress)
    return PublishResult(sent=sent, unparsed=unparsed)
