"""`beliefstream publish` into a running `dev`: each chunk of turns is kept in the SQL intake of
that `dev` before it goes to the embedded broker, so a published turn survives a crash of `dev`
exactly like a turn answered 202 by `/v1/retain` (re-published at restart, processed once by turn
id). Against a Kafka cluster `streams.publish` sends with acks=all and the cluster keeps the log.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

from aiokafka import AIOKafkaProducer
from aiokafka.errors import KafkaError
from pydantic import ValidationError
from tqdm import tqdm

from beliefs.records import Turn, job_id_for, utcnow
from launch.errors import PublishInterrupted
from sinks.sql.intake import queued_job
from sinks.sql.store import SqlMemoryStore
from streams.faust_app import bootstrap_servers
from streams.publish import CHUNK, PublishResult, _lines, keyed_line
from streams.settings import Settings


def _chunks(lines: Iterator[bytes], size: int) -> Iterator[list[bytes]]:
    while chunk := list(islice(lines, size)):
        yield chunk


def _turn(value: bytes) -> Turn | None:
    try:
        return Turn.model_validate_json(value)
    except (ValidationError, ValueError):
        return None  # the pipeline sends it to the DLQ with the reason


async def publish_file_durably(
    path: Path, settings: Settings, url: str, sql_url: str, tenant: str | None = None, show_progress: bool = False
) -> PublishResult:
    """Publish every non-empty line of `path`; valid turns are in the intake before they are sent."""
    total = sum(1 for _ in _lines(path))
    store = SqlMemoryStore(sql_url)
    await store.setup()
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap_servers(url), acks="all", linger_ms=5)
    sent = unparsed = kept = 0
    try:
        await producer.start()
        with tqdm(total=total, unit="turn", desc="publishing", disable=not show_progress) as progress:
            for chunk in _chunks(_lines(path), CHUNK):
                records, turns = [], {}
                for line in chunk:
                    key, value, parsed = keyed_line(line, tenant)
                    unparsed += not parsed
                    if parsed and (turn := _turn(value)) is not None:
                        turns[job_id_for(turn.tenant_id, turn.turn_id)] = turn
                    records.append((key, value))
                now = utcnow()
                await store.enqueue_jobs([queued_job(t, now) for t in turns.values()], list(turns.values()))
                kept += len(turns)
                futures = [await producer.send(settings.turns_topic, key=k, value=v) for k, v in records]
                await asyncio.gather(*futures)
                sent += len(records)
                progress.update(len(records))
    except (KafkaError, OSError) as exc:
        raise PublishInterrupted(
            f"the broker stopped answering after {sent} of {total} lines ({exc}); the {kept} turns accepted "
            "so far are kept in SQL and re-published when `beliefstream dev` starts again; run the same "
            "command again to send the rest (no turn is processed twice)"
        ) from exc
    finally:
        await producer.stop()
        await store.close()
    return PublishResult(sent=sent, unparsed=unparsed, kept=kept)
