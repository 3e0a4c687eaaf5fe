"""`beliefstream dev`: the embedded broker, the files the running dev records in its data dir, and the
worker and sidecar in one process."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
from collections.abc import Callable
from pathlib import Path

from launch.data_dir_lock import data_dir_lock
from launch.progress import IngestProgress
from launch.runtime import open_clients, run_sidecar, run_worker
from launch.service_record import (
    BROKER_URL_FILE,
    DEV_KEY_FILE,
    ServiceRecord,
    local_url,
    remove_service_record,
    write_service_record,
)
from launch.service_record import recorded_broker_url as _recorded_broker_url
from streams.broker import EmbeddedBroker, stop_stale
from streams.faust_app import broker_url
from streams.settings import Settings

log = logging.getLogger(__name__)

BROKER_PID_FILE = "broker.pid"
SQL_URL_FILE = "sql.url"  # where a running `dev` keeps accepted turns: `publish` writes there too


#: What `dev` says at start about the embedded broker (issue 12: say plainly what it keeps).
EMBEDDED_BROKER_NOTE = (
    "  kept      turns answered 202, or sent by `beliefstream publish`, stay in SQL until processed\n"
    "  not kept  the embedded broker's log is in memory: DLQ, events and audit topics die with `dev`"
)


def dev_api_key(settings: Settings) -> Settings:
    """Settings with an API key: `BELIEFSTREAM_API_KEYS` if set, else a dev key kept under data_dir."""
    if settings.api_keys:
        return settings
    path = settings.data_dir / DEV_KEY_FILE
    if path.exists():
        key = path.read_text().strip()
    else:
        key = f"bs-dev-{secrets.token_urlsafe(18)}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(key + "\n")
        path.chmod(0o600)
    return settings.model_copy(update={"api_keys": f"{key}=dev"})


def recorded_broker_url(settings: Settings) -> str | None:
    """The broker a running `beliefstream dev` started, as it recorded under data_dir."""
    return _recorded_broker_url(settings.data_dir)


def recorded_sql_url(settings: Settings) -> str | None:
    """The SQL store of the running `beliefstream dev` (its intake), as it recorded under data_dir."""
    path = settings.data_dir / SQL_URL_FILE
    return path.read_text().strip() if path.exists() else None


def _private_file(path: Path, text: str) -> None:
    path.write_text(text + "\n")
    path.chmod(0o600)  # a SQL URL may carry a password


@contextlib.contextmanager
def embedded_broker(settings: Settings):
    """The embedded broker for `dev`, its URL, pid and the SQL URL recorded so `publish` and
    `recall` find them; a broker a killed previous run left behind is stopped first."""
    if settings.broker:
        yield settings.broker
        return
    pid_file = settings.data_dir / BROKER_PID_FILE
    stale = stop_stale(pid_file)
    if stale is not None:
        log.warning("stopped the embedded broker (pid %d) a previous run left behind", stale)
    broker = EmbeddedBroker(log_path=settings.data_dir / "broker.log").start()
    recorded = [settings.data_dir / name for name in (BROKER_URL_FILE, BROKER_PID_FILE, SQL_URL_FILE)]
    _private_file(pid_file, str(broker.pid))
    _private_file(settings.data_dir / SQL_URL_FILE, settings.resolved_sql_url)
    (settings.data_dir / BROKER_URL_FILE).write_text(broker.url + "\n")
    try:
        yield broker.url
    finally:
        for path in recorded:
            path.unlink(missing_ok=True)
        broker.stop()


async def run_dev(settings: Settings, stop: asyncio.Event, announce: Callable[[str], None]) -> None:
    """Broker, worker and sidecar in one process; returns after a clean stop."""
    with data_dir_lock(settings.data_dir):  # before anything starts: a second dev touches nothing
        settings = dev_api_key(settings)
        await _run_dev(settings, stop, announce)


async def _run_dev(settings: Settings, stop: asyncio.Event, announce: Callable[[str], None]) -> None:
    with embedded_broker(settings) as url:
        url = broker_url(settings, url)
        async with open_clients(settings, url) as clients:
            progress = IngestProgress(announce)
            accepting = asyncio.Event()  # the intake is back on the broker and the worker consumes
            worker = asyncio.create_task(
                run_worker(settings, url, clients, stop, progress, accepting=accepting), name="worker"
            )
            sidecar = asyncio.create_task(run_sidecar(settings, clients, stop, accepting), name="sidecar")
            key = next(iter(settings.parsed_api_keys()))
            served_at = local_url(settings.host, settings.port)
            write_service_record(settings.data_dir, ServiceRecord(served_at, key, os.getpid(), url))
            announce(
                f"beliefstream is running\n"
                f"  sidecar   {served_at}   (OpenAPI at /docs)\n"
                f"  api key   {key}\n"
                f"  broker    {url}   topic {settings.turns_topic}\n"
                f"  data      {settings.data_dir.resolve()}\n"
                + (f"{EMBEDDED_BROKER_NOTE}\n" if not settings.broker else "")
                + "Press Ctrl-C to stop."
            )
            try:
                done, _ = await asyncio.wait({worker, sidecar}, return_when=asyncio.FIRST_EXCEPTION)
                stop.set()
                await asyncio.gather(worker, sidecar, return_exceptions=True)
                progress.flush()
            finally:
                remove_service_record(settings.data_dir)
            for task in done:
                if task.exception() is not None:
                    raise task.exception()
