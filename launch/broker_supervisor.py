"""`dev`'s embedded broker, kept running: started on a port of its own, restarted when it dies.

The broker is polled every `poll_s`; when its process has exited, the supervisor says so once (one
log line, `beliefstream_broker_up` 0), clears `up` and restarts it on the same port with back-off
(`restart_initial_s`, doubling up to `restart_max_s`), saying once more when it is back (up 1,
`beliefstream_broker_restarts_total` +1). The restarted broker is empty (its log is memory only):
`dev` then starts a new worker, which re-publishes the SQL intake before the sidecar publishes again
(`launch.dev`). The broker is spawned from the event loop's thread, whose death takes it along
(`streams.lifeline`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from pathlib import Path

from prometheus_client import REGISTRY, Counter, Gauge

from agents.webhook_signing import retry_delay_s
from streams.broker import EmbeddedBroker, stop_stale
from streams.errors import BrokerError

log = logging.getLogger(__name__)

BROKER_PID_FILE = "broker.pid"


class BrokerMetrics:
    """Whether the embedded broker is up, and how often it was restarted."""

    def __init__(self) -> None:
        self.up = Gauge("beliefstream_broker_up", "1 while dev's embedded broker runs, 0 while it is restarted",
                        registry=REGISTRY)
        self.restarts = Counter("beliefstream_broker_restarts", "Restarts of dev's embedded broker after it died",
                                registry=REGISTRY)


@functools.cache
def broker_metrics() -> BrokerMetrics:
    """The process's one set (prometheus names are registered once)."""
    return BrokerMetrics()


class BrokerSupervisor:
    """Start, watch and restart `dev`'s embedded broker; `up` is set while it runs."""

    def __init__(
        self,
        data_dir: Path,
        *,
        poll_s: float = 0.5,
        restart_initial_s: float = 0.5,
        restart_max_s: float = 30.0,
    ) -> None:
        self.data_dir = data_dir
        self.poll_s = poll_s
        self.restart_initial_s = restart_initial_s
        self.restart_max_s = restart_max_s
        self.broker = EmbeddedBroker(log_path=data_dir / "broker.log")
        self.up = asyncio.Event()
        self.incarnation = 0  # how many times it was (re)started
        self.metrics = broker_metrics()

    @property
    def url(self) -> str:
        return self.broker.url

    @property
    def pid_file(self) -> Path:
        return self.data_dir / BROKER_PID_FILE

    async def start(self) -> None:
        """Stop a broker a killed previous run left behind, then start ours."""
        stale = stop_stale(self.pid_file)
        if stale is not None:
            log.warning("stopped the embedded broker (pid %d) a previous run left behind", stale)
        await self.broker.astart()
        self._started()

    def _started(self) -> None:
        self.pid_file.write_text(f"{self.broker.pid}\n")
        self.pid_file.chmod(0o600)
        self.incarnation += 1
        self.metrics.up.set(1)
        self.up.set()

    def exited(self) -> int | None:
        """The broker's exit code once it has exited, else None."""
        process = self.broker._process
        return process.poll() if process is not None else -1

    async def watch(self, stop: asyncio.Event) -> None:
        """Poll until `stop`; restart the broker each time it has died."""
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.poll_s)
            if stop.is_set():
                return
            code = self.exited()
            if code is None:
                continue
            self.up.clear()
            self.metrics.up.set(0)
            log.error("the embedded broker exited (code %s); restarting it: retained turns wait in the SQL intake", code)
            await self._restart(stop)

    async def _restart(self, stop: asyncio.Event) -> None:
        down_at, attempts = time.monotonic(), 0
        self.broker.stop()  # reaps the process and closes its log file
        while not stop.is_set():
            attempts += 1
            try:
                await self.broker.astart(timeout=10.0)
            except BrokerError as exc:
                delay = retry_delay_s(attempts, self.restart_initial_s, self.restart_max_s)
                log.debug("restarting the embedded broker failed (%s); next try in %.1f s", exc, delay)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), delay)
                continue
            self.metrics.restarts.inc()
            self._started()
            log.warning("the embedded broker is back after %.1f s (%d attempt(s))", time.monotonic() - down_at, attempts)
            return

    def stop(self) -> None:
        self.up.clear()
        self.broker.stop()
        self.pid_file.unlink(missing_ok=True)
