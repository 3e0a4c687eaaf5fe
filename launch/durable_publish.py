"""`beliefstream publish` into a running `dev`: each chunk of turns is kept in the SQL intake of
that `dev` before it goes to the embedded broker, so a published turn survives a crash of `dev`
exactly like a turn answered 202 by `/v1/retain` (re-published at restart, processed once by turn
id). Against a Kafka cluster `streams.publish` sends with acks=all and the cluster keeps the log.
Either way a chunk not acknowledged within `broker_ack_timeout_s` stops the run with one line.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from pathlib import Path

from pydantic import ValidationError
from tqdm import tqdm

from beliefs.records import Turn, job_id_for, utcnow
from launch.errors import PublishInterrupted
from sinks.sql.intake import queued_job
from sinks.sql.store import SqlMemoryStore
from streams.errors import BrokerNotAnswering
from streams.faust_app import bootstrap_servers
from streams.publish import (
    CHUNK,
    PublishResult,
    _lines,
    acknowledged,
    bounded_producer,
    keyed_line,
    send_chunk,
    stop_within,
)
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
    timeout = settings.broker_ack_timeout_s
    producer = bounded_producer(bootstrap_servers(url), timeout)
    sent = unparsed = kept = 0

    try:
        await acknowledged(producer.start(), timeout)
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
                await acknowledged(send_chunk(producer, settings.turns_topic, records), timeout)
                sent += len(records)
                progress.update(len(records))
    except (BrokerNotAnswering, OSError) as exc:
        raise PublishInterrupted(
            f"the broker stopped answering after {sent} of {total} lines ({exc}); the {kept} turns accepted "
            "so far are kept in SQL and re-published by `beliefstream dev` once its broker is back (or at its next "
            "start); run the same "
            "command again to send the rest (no turn is processed twice)"
        ) from exc
    finally:
        await stop_within(producer, timeout)
        await store.close()
    return PublishResult(sent=sent, unparsed=unparsed, kept=kept)
