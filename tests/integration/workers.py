"""Worker processes of one consumer group for the scale-out tests: started, SIGKILLed, stopped, and
their maintenance records read back from their logs."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: The worker, with the windowed jobs' records (INFO) in its log whatever the CLI's log level.
_WORKER = (
    "import logging, sys; logging.getLogger('agents.windowed_jobs').setLevel(logging.INFO); "
    "from launch.cli import main; sys.exit(main(['worker', '--data-dir', sys.argv[1]]))"
)
_OWNS = re.compile(r"maintenance owns partitions \[([0-9, ]*)\]")
_MAINTAINED = re.compile(r"maintained window user=(\w+) partition=(\d+) window=(\d+)-(\d+) worker=(\S+)")


@dataclass(frozen=True)
class WindowRun:
    """One (user, window) maintenance record a worker logged."""

    user: str  # digest of (tenant, user)
    partition: int
    start: int
    end: int
    worker: str


@dataclass
class WorkerProcess:
    """`beliefstream worker` as a subprocess with a data dir and a log of its own."""

    data_dir: Path
    env: dict[str, str]
    process: subprocess.Popen | None = None
    killed_at: float | None = None
    runs: list[WindowRun] = field(default_factory=list)

    @property
    def log_path(self) -> Path:
        return self.data_dir / "worker.log"

    def start(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        environment = {k: v for k, v in os.environ.items() if not k.startswith("BELIEFSTREAM_")}
        environment.update(self.env)
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-c", _WORKER, str(self.data_dir)],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=environment,
                cwd=ROOT,
            )

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def owned(self) -> frozenset[int] | None:
        """The partitions it last said it owns (None before its first assignment)."""
        found = _OWNS.findall(self.log())
        if not found:
            return None
        return frozenset(int(p) for p in found[-1].split(",") if p.strip())

    def window_runs(self) -> list[WindowRun]:
        return [
            WindowRun(user, int(partition), int(start), int(end), worker)
            for user, partition, start, end, worker in _MAINTAINED.findall(self.log())
        ]

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)
        self.killed_at = time.time()

    def stop(self, timeout: float = 60.0) -> None:
        if not self.alive():
            return
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=30)
