"""Crash benchmark: does an acknowledged turn survive a SIGKILL of `dev`, or PostgreSQL going away?

Runs `beliefstream dev` as a subprocess on a data dir of its own and ingests generated turns of our
own. Kill runs: the turns go in `--kills + 1` slices through `/v1/retain` (batches of 50) or
`beliefstream publish` (one file per slice); `dev` is SIGKILLed once the worker has finished about
half of the slice (the other half acknowledged but only in the embedded broker's memory), then
started again on the same data dir; at the end the whole publish file is sent once more. Outage run (PostgreSQL): `/v1/retain` keeps sending (a
refused batch is retried with the same turn ids) while the database is stopped for `--outage-s`.
Each run reports acknowledged turns lost (job missing or still queued), failed, duplicated memories,
processes left alive after a kill, and whether `dev` stayed up through the outage.

    .venv/bin/python bench/crash.py --turns 10000 --kills 10                 # every route, both databases
    .venv/bin/python bench/crash.py --route retain --db sqlite --turns 2000 --kills 3
    .venv/bin/python bench/crash.py --only-outage --outage-s 30

The outage stops a scratch PostgreSQL cluster the bench creates on a free port (so the shared server
other work uses stays up); `--pg-cluster shared` stops and restarts the machine's own cluster with
pg_ctlcluster instead, and starts it again whatever happens.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.crashing import (  # noqa: E402
    Dev,
    RetainClient,
    job_states,
    make_turns,
    outcome,
    publish,
    sql_url_of,
    wait_finished,
    write_jsonl,
)
from streams.broker import free_port  # noqa: E402

SHARED_PG = "postgresql://postgres@127.0.0.1:5432/postgres"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="SIGKILL `beliefstream dev` during an ingest and stop PostgreSQL mid-ingest; count "
        "acknowledged turns lost and duplicated (figures for docs/reliability.md).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--turns", type=int, default=10_000, help="turns per kill run")
    parser.add_argument("--kills", type=int, default=10, help="SIGKILLs of dev per kill run")
    parser.add_argument("--route", choices=["retain", "publish"], nargs="+", default=["retain", "publish"])
    parser.add_argument("--db", choices=["sqlite", "postgres"], nargs="+", default=["sqlite", "postgres"])
    parser.add_argument("--outage-s", type=float, default=30.0, help="seconds PostgreSQL stays away")
    parser.add_argument("--outage-turns", type=int, default=3000, help="turns sent during the outage run")
    parser.add_argument("--no-outage", action="store_true", help="skip the PostgreSQL outage run")
    parser.add_argument("--only-outage", action="store_true", help="run the outage only")
    parser.add_argument("--pg-cluster", choices=["scratch", "shared"], default="scratch",
                        help="which PostgreSQL the outage stops: a scratch cluster of the bench, or the machine's")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds to wait for the last jobs")
    parser.add_argument("--json", type=Path, help="also write the results here")
    return parser.parse_args(argv)


# -- databases ------------------------------------------------------------------------------------

async def _admin(dsn: str, statement: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


async def fresh_database(admin_dsn: str) -> str:
    """A new database on the server of `admin_dsn`; its SQLAlchemy URL."""
    name = f"bs_crash_{uuid.uuid4().hex[:10]}"
    await _admin(admin_dsn, f'CREATE DATABASE "{name}"')
    return admin_dsn.rsplit("/", 1)[0].replace("postgresql://", "postgresql+asyncpg://", 1) + f"/{name}"


async def drop_database(admin_dsn: str, url: str) -> None:
    await _admin(admin_dsn, f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}" WITH (FORCE)')


class ScratchPostgres:
    """A PostgreSQL cluster of the bench's own on a free port (initdb as the postgres user)."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="bs-crash-pg-"))  # the postgres user must reach it
        self.data = self.root / "pgdata"
        self.port = free_port()
        self.bin = Path(sorted(Path("/usr/lib/postgresql").glob("*/bin"))[-1])

    def _pg(self, *args: str) -> None:
        done = subprocess.run(["runuser", "-u", "postgres", "--", *args], capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{Path(args[0]).name} failed: {(done.stderr or done.stdout)[-500:]}")

    @property
    def admin_dsn(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def create(self) -> None:
        shutil.chown(self.root, "postgres", "postgres")
        self._pg(str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync")
        self.start()

    def start(self) -> None:
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=on"
        self._pg(str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(self.root / "log"), "-w", "start")

    def stop(self) -> None:
        self._pg(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def destroy(self) -> None:
        try:
            self.stop()
        except RuntimeError:
            pass
        shutil.rmtree(self.root, ignore_errors=True)


class SharedPostgres:
    """The machine's own cluster, stopped and started with pg_ctlcluster (other work on it pauses)."""

    admin_dsn = SHARED_PG

    def __init__(self) -> None:
        self.version = sorted(p.name for p in Path("/etc/postgresql").iterdir())[-1]

    def _ctl(self, action: str) -> None:
        subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", self.version, "main", action],
                       check=True, capture_output=True, timeout=120)

    def create(self) -> None:
        pass

    def start(self) -> None:
        self._ctl("start")

    def stop(self) -> None:
        self._ctl("stop")

    def destroy(self) -> None:
        subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", self.version, "main", "start"],
                       capture_output=True, timeout=120)  # started again, whatever happened


# -- runs -------------------------------------------------------------------------------------------

def _slices(items: list, parts: int) -> list[list]:
    size = -(-len(items) // parts)
    return [items[i : i + size] for i in range(0, len(items), size)]


async def half_processed(url: str, acknowledged: list[str], latest: int, timeout: float = 300.0) -> None:
    """Wait until the worker has finished all but about half of the latest `latest` turns."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        states = await job_states(url, acknowledged)
        if sum(s == "queued" for s in states.values()) <= latest // 2:
            return
        await asyncio.sleep(0.2)


async def kill_run(route: str, sql_url: str | None, args: argparse.Namespace, work: Path) -> dict:
    """`--kills` SIGKILLs of dev during an ingest of `--turns` turns through `route`."""
    turns = make_turns(args.turns, prefix=route[0])
    dev = Dev(work / "data", free_port(), sql_url)
    url = sql_url_of(dev)
    client = RetainClient(dev, batch=50)
    slices = _slices(turns, args.kills + 1)
    at_risk, survivors, started = [], 0, time.monotonic()
    full = write_jsonl(work / "all.jsonl", turns)
    try:
        for k, part in enumerate(slices):
            dev.start()
            if route == "retain":
                await client.send(part)
            else:
                done = publish(dev, write_jsonl(work / f"part-{k}.jsonl", part))
                if done.returncode != 0:
                    raise RuntimeError(f"publish failed: {done.stderr[-500:]}")
            if k == len(slices) - 1:
                break
            acknowledged = client.acknowledged if route == "retain" else [t["turn_id"] for s in slices[: k + 1] for t in s]
            await half_processed(url, acknowledged, len(part))  # mid-ingest: part done, part on the broker
            survivors += len(dev.kill())
            states = await job_states(url, acknowledged)
            at_risk.append(sum(s == "queued" for s in states.values()))
        if route == "publish":
            again = publish(dev, full)  # the whole file once more: nothing may be processed twice
            if again.returncode != 0:
                raise RuntimeError(f"publish failed: {again.stderr[-500:]}")
        acknowledged = client.acknowledged if route == "retain" else [t["turn_id"] for t in turns]
        await wait_finished(url, acknowledged, args.timeout)
    finally:
        dev.stop()
    result = await outcome(url, acknowledged)
    return {
        "route": route,
        "kills": len(at_risk),
        "acknowledged": result.acknowledged,
        "unfinished_at_kills": at_risk,
        "lost": result.lost,
        "failed": result.failed,
        "duplicate_memories": result.duplicate_memories,
        "intake_left": result.pending_intake,
        "processes_left_after_kills": survivors,
        "seconds": round(time.monotonic() - started, 1),
    }


async def outage_run(args: argparse.Namespace, work: Path) -> dict:
    """PostgreSQL away for `--outage-s` while `/v1/retain` keeps sending; dev must neither lose a
    turn nor exit."""
    cluster = ScratchPostgres() if args.pg_cluster == "scratch" else SharedPostgres()
    turns = make_turns(args.outage_turns, prefix="o")
    cluster.create()
    try:
        sql_url = await fresh_database(cluster.admin_dsn)
        dev = Dev(work / "data", free_port(), sql_url)
        client = RetainClient(dev, batch=50)
        dev.start()
        try:
            sending = asyncio.create_task(client.send_patiently(turns, timeout=args.outage_s + 600))
            while len(client.acknowledged) < len(turns) // 3 and not sending.done():
                await asyncio.sleep(0.1)
            await asyncio.to_thread(cluster.stop)
            away_at = time.monotonic()
            await asyncio.sleep(args.outage_s)
            await asyncio.to_thread(cluster.start)
            back_after = time.monotonic() - away_at
            refused = await sending
            await wait_finished(sql_url, client.acknowledged, args.timeout)
            drained_after = time.monotonic() - away_at - back_after
            alive = dev.process is not None and dev.process.poll() is None
            restarts = (dev.data_dir / "dev.out").read_text().count("beliefstream is running")
        finally:
            dev.stop()
        result = await outcome(sql_url, client.acknowledged)
        await drop_database(cluster.admin_dsn, sql_url)
    finally:
        cluster.destroy()
    return {
        "route": "retain",
        "outage_s": round(back_after, 1),
        "acknowledged": result.acknowledged,
        "refused_while_away": refused,
        "lost": result.lost,
        "failed": result.failed,
        "duplicate_memories": result.duplicate_memories,
        "dev_stayed_up": alive and restarts == 1,
        "drained_s_after_return": round(drained_after, 1),
    }


async def main(args: argparse.Namespace) -> list[dict]:
    results = []
    with tempfile.TemporaryDirectory(prefix="bs-crash-") as tmp:
        root = Path(tmp)
        if not args.only_outage:
            for db in args.db:
                for route in args.route:
                    work = root / f"{db}-{route}"
                    work.mkdir()
                    sql_url = await fresh_database(SHARED_PG) if db == "postgres" else None
                    try:
                        result = {"db": db, **await kill_run(route, sql_url, args, work)}
                    finally:
                        if sql_url:
                            await drop_database(SHARED_PG, sql_url)
                    print(json.dumps(result), flush=True)
                    results.append(result)
        if not args.no_outage:
            result = {"db": "postgres", "scenario": "outage", **await outage_run(args, root / "outage")}
            print(json.dumps(result), flush=True)
            results.append(result)
    return results


if __name__ == "__main__":
    arguments = parse_args()
    figures = asyncio.run(main(arguments))
    if arguments.json:
        arguments.json.write_text(json.dumps(figures, indent=2) + "\n")
    bad = [r for r in figures if r["lost"] or r["duplicate_memories"] or r.get("dev_stayed_up") is False]
    sys.exit(1 if bad else 0)
