"""A fresh `beliefstream dev` for a benchmark, and the HTTP calls every benchmark makes to it.

`DevStack` runs `beliefstream dev` in a child process on a free port with its own data dir (no
`BELIEFSTREAM_` variable of the caller leaks in); `request` retries while the sidecar says 429 or
503; `wait_for_jobs` polls retained turns until none is queued; `retained` does all of it: a stack
serving the benchmark's turns, retained once per kept data dir. Used by `bench/locomo.py` and
`bench/recall_scenarios.py`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Seconds to wait, after the last job, for the vector points to follow their SQL commit (outbox).
PROJECTION_WAIT_S = 3.0


class DevStack:
    """`beliefstream dev` in a child process on a free port with a temp data dir."""

    def __init__(self, data_dir: Path) -> None:
        from streams.broker import free_port

        self.port = free_port()
        self.data_dir = data_dir
        env = {k: v for k, v in os.environ.items() if not k.startswith("BELIEFSTREAM_")}
        self.log = open(data_dir / "dev.log", "w")  # noqa: SIM115 (closed in stop)
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "launch.cli",
                "dev",
                "--port",
                str(self.port),
                "--data-dir",
                str(data_dir),
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=ROOT,
        )
        self.base = f"http://127.0.0.1:{self.port}"

    async def ready(self, client, timeout: float = 180.0) -> str:
        """Wait for `/readyz`; answer the dev API key."""
        import httpx

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"beliefstream dev exited early; see {self.log.name}")
            try:
                if (await client.get(f"{self.base}/readyz")).status_code == 200:
                    return (self.data_dir / "dev-api-key").read_text().strip()
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.5)
        raise SystemExit(f"beliefstream dev was not ready after {timeout:.0f} s; see {self.log.name}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


async def request(client, method: str, url: str, **kwargs):
    """One call, retried while the sidecar says 429 (rate limit) or 503 (busy)."""
    for _ in range(100):
        response = await client.request(method, url, **kwargs)
        if response.status_code not in (429, 503):
            response.raise_for_status()
            return response.json()
        await asyncio.sleep(float(response.headers.get("retry-after", 0.5)))
    raise SystemExit(f"{method} {url}: still refused after 100 tries")


async def wait_for_jobs(client, base: str, job_ids: list[str], log, timeout: float) -> dict[str, int]:
    """Poll in order (turns of a user finish in order) until no job is queued; count the states."""
    states: dict[str, int] = {}
    deadline = time.monotonic() + timeout
    last_report = 0.0
    for index, job_id in enumerate(job_ids):
        while True:
            state = (await request(client, "GET", f"{base}/v1/jobs/{job_id}"))["state"]
            if state != "queued":
                break
            if time.monotonic() > deadline:
                raise SystemExit(f"jobs still queued after {timeout:.0f} s ({index}/{len(job_ids)} finished)")
            if time.monotonic() - last_report > 10:
                log(f"pipeline: {index}/{len(job_ids)} jobs finished")
                last_report = time.monotonic()
            await asyncio.sleep(0.5)
        states[state] = states.get(state, 0) + 1
    return states


@contextlib.asynccontextmanager
async def retained(
    data_dir: Path | None,
    fingerprint: str,
    retain: Callable[..., Awaitable[list[str]]],
    log: Callable[[str], None],
    timeout: float,
    marker_name: str = "retained.txt",
) -> AsyncIterator[tuple[object, str]]:
    """A fresh `dev` serving the benchmark's turns: yields (an authorised httpx client, base URL).

    `retain(client, base)` posts the turns and answers their job ids; the jobs are awaited, then the
    vector projection. With a kept `data_dir` whose marker holds the same `fingerprint`, nothing is
    retained again; a marker with another fingerprint is refused.
    """
    import httpx

    with tempfile.TemporaryDirectory(prefix="bench-dev-") as tmp:
        folder = data_dir or Path(tmp) / "data"
        marker = folder / marker_name
        reuse = marker.exists() and marker.read_text() == fingerprint
        if data_dir and marker.exists() and not reuse:
            raise SystemExit(f"{folder} holds other turns (see {marker.name}); use an empty --data-dir")
        folder.mkdir(parents=True, exist_ok=True)
        stack = DevStack(folder)
        try:
            async with httpx.AsyncClient(timeout=120) as client:
                key = await stack.ready(client)
                client.headers["Authorization"] = f"Bearer {key}"
                log(f"beliefstream dev ready on {stack.base}")
                if reuse:
                    log(f"reusing the turns retained in {folder}")
                else:
                    started = time.monotonic()
                    job_ids = await retain(client, stack.base)
                    states = await wait_for_jobs(client, stack.base, job_ids, log, timeout)
                    log(f"pipeline: {len(job_ids)} jobs in {time.monotonic() - started:.0f} s: {states}")
                    await asyncio.sleep(PROJECTION_WAIT_S)
                    marker.write_text(fingerprint)
                yield client, stack.base
        finally:
            stack.stop()
