"""`beliefstream dev`: the embedded broker, the files the running dev records in its data dir, and the
worker and sidecar in one process."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from launch.broker_supervisor import BrokerSupervisor
from launch.data_dir_lock import data_dir_lock
from launch.progress import IngestProgress
from launch.runtime import Clients, ingest_embedder, open_clients, run_worker
from launch.service_record import (
    BROKER_URL_FILE,
    DEV_KEY_FILE,
    ServiceRecord,
    local_url,
    remove_service_record,
    write_service_record,
)
from launch.service_record import recorded_broker_url as _recorded_broker_url
from launch.sidecar_serving import first_of, run_sidecar
from streams.faust_app import broker_url
from streams.settings import Settings

log = logging.getLogger(__name__)

#: Longest a worker is waited for when it stops (a dead broker can keep faust's stop waiting).
WORKER_STOP_S = 3.0
#: ... and while the broker runs (it finishes the batch in flight).
WORKER_DRAIN_S = 60.0

SQL_URL_FILE = "sql.url"  # where a running `dev` keeps accepted turns: `publish` writes there too


#: What `dev` says at start about the embedded broker (issue 12: say plainly what it keeps).
EMBEDDED_BROKER_NOTE = (
    "  kept      turns answered 202, or sent by `beliefstream publish`, stay in SQL until processed;\n"
    "            a broker that dies is restarted and the kept turns go out again\n"
    "  not kept  the embedded broker's log is in memory: DLQ and events topics die with it;\n"
    "            recall audit records go to SQL only (not to the embedded broker)"
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


@contextlib.asynccontextmanager
async def embedded_broker(settings: Settings) -> AsyncIterator[BrokerSupervisor | None]:
    """`dev`'s supervised embedded broker, its URL, pid and the SQL URL recorded so `publish` and
    `recall` find them (None with `BELIEFSTREAM_BROKER`: nothing to supervise)."""
    if settings.broker:
        yield None
        return
    supervisor = BrokerSupervisor(settings.data_dir)
    await supervisor.start()
    recorded = [settings.data_dir / name for name in (BROKER_URL_FILE, SQL_URL_FILE)]
    _private_file(settings.data_dir / SQL_URL_FILE, settings.resolved_sql_url)
    (settings.data_dir / BROKER_URL_FILE).write_text(supervisor.url + "\n")
    try:
        yield supervisor
    finally:
        for path in recorded:
            path.unlink(missing_ok=True)
        supervisor.stop()


async def run_dev(settings: Settings, stop: asyncio.Event, announce: Callable[[str], None]) -> None:
    """Broker, worker and sidecar in one process; returns after a clean stop."""
    with data_dir_lock(settings.data_dir):  # before anything starts: a second dev touches nothing
        settings = dev_api_key(settings)
        await _run_dev(settings, stop, announce)


async def _run_dev(settings: Settings, stop: asyncio.Event, announce: Callable[[str], None]) -> None:
    async with embedded_broker(settings) as supervisor:
        url = broker_url(settings, supervisor.url if supervisor is not None else None)
        async with open_clients(settings, url) as clients:
            progress = IngestProgress(announce)
            accepting = asyncio.Event()  # the intake is back on the broker and the worker consumes
            worker = asyncio.create_task(
                supervised_worker(settings, url, clients, stop, progress, accepting, supervisor), name="worker"
            )
            sidecar = asyncio.create_task(run_sidecar(settings, clients, stop, accepting), name="sidecar")
            stopped = asyncio.Event()  # the worker and the sidecar stopped: the broker may go
            watcher = asyncio.create_task(supervisor.watch(stopped) if supervisor else stop.wait(), name="broker")
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
                stopped.set()
                await asyncio.gather(watcher, return_exceptions=True)
                progress.flush()
            finally:
                remove_service_record(settings.data_dir)
            for task in done:
                if task.exception() is not None:
                    raise task.exception()


async def supervised_worker(
    settings: Settings,
    url: str,
    clients: Clients,
    stop: asyncio.Event,
    progress: IngestProgress,
    accepting: asyncio.Event,
    supervisor: BrokerSupervisor | None,
) -> None:
    """The worker, started again each time the supervised broker comes back from the dead.

    When the broker dies, `accepting` is cleared at once (the sidecar keeps answering 202 with turns
    kept in the intake only) and the worker is stopped within `WORKER_STOP_S`; once the broker is
    back, a new worker re-publishes the intake, then sets `accepting` again.
    """
    if supervisor is None:
        await run_worker(settings, url, clients, stop, progress, accepting=accepting)
        return
    model = await ingest_embedder(settings, clients)  # kept across workers: a restart loads no model

    async def one_worker() -> None:
        """Run a worker until `stop` or its broker's death; stop it (bounded); wait for the broker."""
        incarnation = supervisor.incarnation
        stopping = asyncio.Event()
        worker = asyncio.create_task(
            run_worker(settings, url, clients, stopping, progress, accepting=accepting, ingest_model=model)
        )
        lost = asyncio.create_task(_broker_lost(supervisor, incarnation))
        ended = asyncio.create_task(stop.wait())
        await asyncio.wait({worker, lost, ended}, return_when=asyncio.FIRST_COMPLETED)
        accepting.clear()
        stopping.set()
        lost.cancel()
        ended.cancel()
        if stop.is_set():  # a worker stops cleanly against a live broker: the supervisor brings it back first
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(_live(supervisor), WORKER_STOP_S)
        # a worker whose broker died (even if it is back) has broken connections: its stop is bounded short
        same_broker = supervisor.incarnation == incarnation and supervisor.up.is_set() and supervisor.exited() is None
        await _bounded(worker, WORKER_DRAIN_S if same_broker else WORKER_STOP_S)
        if stop.is_set():
            return
        if worker.done() and not worker.cancelled() and worker.exception() is not None:
            await asyncio.sleep(2 * supervisor.poll_s)  # did the broker take it down? the supervisor knows by now
            if supervisor.up.is_set() and supervisor.incarnation == incarnation and supervisor.exited() is None:
                raise worker.exception()  # not the broker's doing
        await first_of(supervisor.up, stop)

    try:
        while not stop.is_set():
            await one_worker()
    finally:
        if model is not clients.embedder:
            await asyncio.to_thread(model.close)


async def _live(supervisor: BrokerSupervisor) -> None:
    """Returns once the broker runs (restarted if it had died)."""
    while not (supervisor.up.is_set() and supervisor.exited() is None):
        await asyncio.sleep(0.05)


async def _broker_lost(supervisor: BrokerSupervisor, incarnation: int) -> None:
    """Returns once the broker of `incarnation` is gone (down, or already replaced)."""
    while supervisor.up.is_set() and supervisor.incarnation == incarnation:
        await asyncio.sleep(0.1)


async def _bounded(task: asyncio.Task, seconds: float) -> None:
    """Wait for `task` up to `seconds`, then cancel it (a stop that waits on a dead broker)."""
    done, _ = await asyncio.wait({task}, timeout=seconds)
    if not done:
        log.warning("the worker did not stop within %.0f s; cancelling it", seconds)
        task.cancel()
        with contextlib.suppress(BaseException):
            await task
