"""Killing `beliefstream dev` on purpose: a real `dev` subprocess, turns sent through `/v1/retain`
or `beliefstream publish`, SIGKILL, restart on the same data dir, and the count of acknowledged
turns whose job never finished or finished twice. `bench/crash.py` (many kills, many turns) and
`tests/integration/test_crash.py` (one kill, a few hundred turns) share it.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import sqlalchemy as sa

from beliefs.records import job_id_for
from sinks.sql.engine import create_engine
from streams.broker import running

ROOT = Path(__file__).resolve().parents[1]
TENANT = "dev"  # the tenant of the dev key that `dev` writes

_FACTS = (
    "I live in {city}.",
    "I'm allergic to {food}.",
    "I always use {tool} for editing.",
    "My favourite colour is {colour}.",
    "I work as a {job}.",
    "thanks, that helps!",
)
_VALUES = {
    "city": ["Oslo", "Lyon", "Porto", "Quito", "Hanoi", "Perth", "Tartu", "Cork"],
    "food": ["peanuts", "shellfish", "gluten", "sesame", "kiwi", "soy"],
    "tool": ["vim", "emacs", "VS Code", "nano", "Helix"],
    "colour": ["teal", "amber", "crimson", "olive", "navy"],
    "job": ["nurse", "welder", "pilot", "baker", "teacher", "chemist"],
}


def make_turns(count: int, prefix: str = "t") -> list[dict]:
    """`count` user turns of our own: each user says each sentence once (facts the rules extractor
    keeps, and small talk it skips), so two current memories of one user with one text can only
    come from a turn processed twice."""
    turns = []
    for i in range(count):
        user, template = divmod(i, len(_FACTS))
        values = {name: options[(user + k) % len(options)] for k, (name, options) in enumerate(_VALUES.items())}
        text = _FACTS[template].format(**values)
        turns.append({"turn_id": f"{prefix}-{i:06d}", "user_id": f"{prefix}u-{user:05d}", "role": "user", "text": text})
    return turns


def children_of(pid: int) -> list[int]:
    """Direct child processes of `pid`, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return found


def wait_gone(pids: Iterable[int], timeout: float = 5.0) -> list[int]:
    """The pids still alive after `timeout` seconds (empty: all gone)."""
    deadline = time.monotonic() + timeout
    left = [p for p in pids if running(p)]
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = [p for p in left if running(p)]
    return left


@dataclass
class Dev:
    """`beliefstream dev` as a subprocess on a data dir, port and SQL URL of its own."""

    data_dir: Path
    port: int
    sql_url: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    process: subprocess.Popen | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def command_env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("BELIEFSTREAM_")}
        env.update({"BELIEFSTREAM_INGEST_EMBED_PROCESSES": "1", **self.env})
        if self.sql_url:
            env["BELIEFSTREAM_SQL_URL"] = self.sql_url
        return env

    def start(self, timeout: float = 300.0) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        log = (self.data_dir / "dev.out").open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "launch.cli", "dev", "--port", str(self.port), "--data-dir", str(self.data_dir)],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=self.command_env(),
            cwd=ROOT,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"dev exited at start: {(self.data_dir / 'dev.out').read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.base}/readyz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError("dev did not become ready")

    @property
    def key(self) -> str:
        return (self.data_dir / "dev-api-key").read_text().strip()

    def kill(self) -> list[int]:
        """SIGKILL `dev`; answers its broker and model processes that are still alive 5 s later."""
        if self.process is None:
            return []
        descendants = children_of(self.process.pid)
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)
        self.process = None
        return wait_gone(descendants)

    def stop(self) -> int:
        if self.process is None:
            return 0
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=60)
        finally:
            self.process = None


@dataclass
class RetainClient:
    """Sends turns through `/v1/retain` in batches; remembers which got 202 (acknowledged)."""

    dev: Dev
    batch: int = 25
    acknowledged: list[str] = field(default_factory=list)  # turn ids

    async def send(self, turns: Sequence[dict], stop_after: int | None = None) -> int:
        """Send until done, a failure (dev gone), or `stop_after` more acknowledged turns; answers how
        many turns of `turns` were sent (acknowledged), in order."""
        sent = 0
        headers = {"Authorization": f"Bearer {self.dev.key}"}
        async with httpx.AsyncClient(base_url=self.dev.base, headers=headers, timeout=30) as http:
            for start in range(0, len(turns), self.batch):
                chunk = list(turns[start : start + self.batch])
                try:
                    answer = await http.post("/v1/retain", json={"turns": chunk})
                except httpx.HTTPError:
                    return sent
                if answer.status_code == 429:
                    await asyncio.sleep(0.2)
                    answer = await http.post("/v1/retain", json={"turns": chunk})
                if answer.status_code != 202:
                    return sent
                self.acknowledged.extend(t["turn_id"] for t in chunk)
                sent += len(chunk)
                if stop_after is not None and sent >= stop_after:
                    return sent
        return sent


    async def send_patiently(self, turns: Sequence[dict], timeout: float) -> int:
        """Send every turn, retrying a refused or failed batch (same turn ids) until it gets 202;
        answers how many answers were not 202 (refusals while a dependency was away)."""
        refused = 0
        headers = {"Authorization": f"Bearer {self.dev.key}"}
        deadline = time.monotonic() + timeout
        async with httpx.AsyncClient(base_url=self.dev.base, headers=headers, timeout=30) as http:
            for start in range(0, len(turns), self.batch):
                chunk = list(turns[start : start + self.batch])
                while True:
                    try:
                        status = (await http.post("/v1/retain", json={"turns": chunk})).status_code
                    except httpx.HTTPError:
                        status = 0
                    if status == 202:
                        break
                    refused += 1
                    if time.monotonic() > deadline:
                        return refused
                    await asyncio.sleep(0.5)
                self.acknowledged.extend(t["turn_id"] for t in chunk)
        return refused


def publish(dev: Dev, path: Path, timeout: float = 600.0) -> subprocess.CompletedProcess:
    """`beliefstream publish FILE` into the running `dev` (same data dir and SQL settings)."""
    return subprocess.run(
        [sys.executable, "-m", "launch.cli", "publish", str(path), "--data-dir", str(dev.data_dir), "--tenant", TENANT],
        capture_output=True,
        text=True,
        env=dev.command_env(),
        cwd=ROOT,
        timeout=timeout,
    )


def write_jsonl(path: Path, turns: Sequence[dict]) -> Path:
    path.write_text("".join(json.dumps(t) + "\n" for t in turns))
    return path


@dataclass(frozen=True)
class Outcome:
    """What became of the acknowledged turns."""

    acknowledged: int
    finished: int  # done or skipped
    failed: int
    lost: int  # acknowledged, but no job or a job still queued
    duplicate_memories: int  # active memories of one user with the same text, beyond the first
    pending_intake: int


def sql_url_of(dev: Dev) -> str:
    return dev.sql_url or f"sqlite+aiosqlite:///{(dev.data_dir / 'memory.db').as_posix()}"


async def job_rows(url: str, turn_ids: Sequence[str]) -> dict[str, sa.Row]:
    """Each turn's job row (`state`, `updated_at`), by turn id ({} for a turn without a job)."""
    engine = create_engine(url)
    wanted = {job_id_for(TENANT, t): t for t in turn_ids}
    found: dict[str, sa.Row] = {}
    try:
        async with engine.connect() as conn:
            ids = list(wanted)
            for start in range(0, len(ids), 500):
                rows = await conn.execute(
                    sa.text("SELECT job_id, state, updated_at FROM jobs WHERE job_id IN :ids").bindparams(
                        sa.bindparam("ids", expanding=True)
                    ),
                    {"ids": ids[start : start + 500]},
                )
                found.update({wanted[r.job_id]: r for r in rows})
    finally:
        await engine.dispose()
    return found


async def job_states(url: str, turn_ids: Sequence[str]) -> dict[str, str]:
    """State of each turn's job ({} for a turn without a job)."""
    return {turn: row.state for turn, row in (await job_rows(url, turn_ids)).items()}


async def wait_finished(url: str, turn_ids: Sequence[str], timeout: float) -> dict[str, str]:
    """Poll until every turn's job is finished (or the timeout); the last states read."""
    deadline = time.monotonic() + timeout
    while True:
        states = await job_states(url, turn_ids)
        unfinished = [t for t in turn_ids if states.get(t) in (None, "queued")]
        if not unfinished or time.monotonic() > deadline:
            return states
        await asyncio.sleep(0.5)


async def outcome(url: str, turn_ids: Sequence[str]) -> Outcome:
    states = await job_states(url, turn_ids)
    engine = create_engine(url)
    try:
        async with engine.connect() as conn:
            duplicates = (
                await conn.execute(
                    sa.text(
                        "SELECT COALESCE(SUM(n - 1), 0) FROM (SELECT COUNT(*) AS n FROM memories "
                        "WHERE valid_until IS NULL GROUP BY tenant_id, user_id, text_norm_hash) AS g"
                    )
                )
            ).scalar_one()
            pending = (await conn.execute(sa.text("SELECT COUNT(*) FROM intake"))).scalar_one()
    finally:
        await engine.dispose()
    values = [states.get(t) for t in turn_ids]
    return Outcome(
        acknowledged=len(turn_ids),
        finished=sum(v in ("done", "skipped") for v in values),
        failed=sum(v == "failed" for v in values),
        lost=sum(v in (None, "queued") for v in values),
        duplicate_memories=int(duplicates),
        pending_intake=int(pending),
    )
