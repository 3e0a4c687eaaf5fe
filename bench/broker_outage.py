"""Broker outage benchmark: `dev`'s embedded broker SIGKILLed under a steady `/v1/retain` ingest.

Runs `beliefstream dev` as a subprocess on a data dir of its own (SQLite), sends single-turn retains
at `--rate` turns/s for `--seconds`, and SIGKILLs the embedded broker `--kills` times (the first at
`--first-kill-s`, then every `--every-s`). Reports, per kill: the retains' status and latency from the
kill until the supervisor said the broker was back, how long that took, how long until every turn
accepted in the second after the kill was processed (recovery), and the log lines `dev` wrote
meanwhile; then whether any acknowledged turn was lost or processed twice, and how long a SIGTERM
takes when it comes right after a kill (the broker down).

    .venv/bin/python bench/broker_outage.py                      # 40 turns/s, 40 s, 3 kills
    .venv/bin/python bench/broker_outage.py --rate 20 --seconds 20 --kills 1
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.crashing import Dev, job_rows, make_turns, outcome, sql_url_of, wait_finished  # noqa: E402
from streams.broker import free_port  # noqa: E402


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="SIGKILL dev's embedded broker under a retain ingest; retain latency while it is down, "
        "time to recover, log lines, turns lost (figures for docs/benchmarks.md).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--rate", type=float, default=40.0, help="retained turns per second")
    parser.add_argument("--seconds", type=float, default=40.0, help="how long the ingest runs")
    parser.add_argument("--kills", type=int, default=3, help="SIGKILLs of the broker during the ingest")
    parser.add_argument("--first-kill-s", type=float, default=8.0)
    parser.add_argument("--every-s", type=float, default=10.0)
    parser.add_argument("--json", action="store_true", help="print the result as JSON too")
    return parser.parse_args(argv)


@dataclass
class Sent:
    turn_id: str
    at: float  # wall clock (s) the request was sent
    seconds: float
    status: int


async def ingest(dev: Dev, turns: list[dict], rate: float, sent: list[Sent]) -> None:
    """One single-turn retain every 1/rate s, each in flight on its own (a slow answer delays none)."""
    headers = {"Authorization": f"Bearer {dev.key}"}
    async with httpx.AsyncClient(base_url=dev.base, headers=headers, timeout=120) as http:

        async def one(turn: dict) -> None:
            at, started = time.time(), time.monotonic()
            try:
                status = (await http.post("/v1/retain", json=turn)).status_code
            except httpx.HTTPError:
                status = 0
            sent.append(Sent(turn["turn_id"], at, time.monotonic() - started, status))

        tasks, start = [], time.monotonic()
        for i, turn in enumerate(turns):
            await asyncio.sleep(max(0.0, start + i / rate - time.monotonic()))
            tasks.append(asyncio.create_task(one(turn)))
        await asyncio.gather(*tasks)


def broker_pid(dev: Dev) -> int:
    return int((dev.data_dir / "broker.pid").read_text())


def log_lines(dev: Dev) -> list[str]:
    return (dev.data_dir / "dev.out").read_text(errors="replace").splitlines()


async def kill_broker(dev: Dev, when: list[float], kills: list[dict]) -> None:
    start = time.monotonic()
    for at in when:
        await asyncio.sleep(max(0.0, start + at - time.monotonic()))
        lines_before = len(log_lines(dev))
        pid = broker_pid(dev)
        killed_at = time.time()
        os.kill(pid, signal.SIGKILL)
        back_at = None
        while back_at is None and time.time() - killed_at < 120:
            await asyncio.sleep(0.05)
            try:
                if broker_pid(dev) != pid:
                    back_at = time.time()
            except (OSError, ValueError):
                pass
        await asyncio.sleep(3.0)  # the lines the restart causes
        kills.append({"killed_at": killed_at, "back_at": back_at, "log_lines": log_lines(dev)[lines_before:]})


async def done_times(url: str, turn_ids: list[str]) -> dict[str, float]:
    """When each turn's job was finished (wall clock, s)."""
    found = {}
    for turn, row in (await job_rows(url, turn_ids)).items():
        if row.state == "queued":
            continue
        at = row.updated_at if isinstance(row.updated_at, datetime) else datetime.fromisoformat(row.updated_at)
        found[turn] = (at if at.tzinfo else at.replace(tzinfo=UTC)).timestamp()
    return found


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run(args: argparse.Namespace) -> dict:
    data_dir = Path(tempfile.mkdtemp(prefix="bs-broker-outage-")) / "data"
    dev = Dev(data_dir, free_port(), env={"BELIEFSTREAM_LOG_FORMAT": "console"})
    dev.start()
    turns = make_turns(int(args.rate * args.seconds), prefix="bo")
    sent: list[Sent] = []
    kills: list[dict] = []
    when = [args.first_kill_s + k * args.every_s for k in range(args.kills)]
    try:
        await asyncio.gather(ingest(dev, turns, args.rate, sent), kill_broker(dev, when, kills))
        acknowledged = [s.turn_id for s in sent if s.status == 202]
        await wait_finished(sql_url_of(dev), acknowledged, timeout=300)
        finished_at = await done_times(sql_url_of(dev), acknowledged)
        result = await outcome(sql_url_of(dev), acknowledged)
        per_kill = []
        for kill in kills:
            down = [s for s in sent if kill["killed_at"] <= s.at <= (kill["back_at"] or kill["killed_at"]) + 1.0]
            first_second = [s.turn_id for s in sent if kill["killed_at"] <= s.at <= kill["killed_at"] + 1.0 and s.status == 202]
            recovered = max((finished_at.get(t, float("inf")) for t in first_second), default=float("nan"))
            per_kill.append({
                "broker_back_s": round((kill["back_at"] or float("nan")) - kill["killed_at"], 2),
                "retains_while_down": len(down),
                "statuses_while_down": sorted({s.status for s in down}),
                "retain_p50_ms_while_down": round(1000 * percentile([s.seconds for s in down], 0.5), 1),
                "retain_max_ms_while_down": round(1000 * max((s.seconds for s in down), default=float("nan")), 1),
                "recovered_s": round(recovered - kill["killed_at"], 2),
                "log_lines": len(kill["log_lines"]),
                "log_excerpt": [line[:160] for line in kill["log_lines"] if "[launch" in line or "[error" in line][:6],
            })
        latencies = [s.seconds for s in sent]
        # the broker down when SIGTERM comes
        os.kill(broker_pid(dev), signal.SIGKILL)
        await asyncio.sleep(0.1)
        started = time.monotonic()
        code = dev.stop()
        sigterm_s = time.monotonic() - started
    finally:
        if dev.process is not None:
            dev.kill()
    return {
        "rate": args.rate,
        "seconds": args.seconds,
        "sent": len(sent),
        "statuses": {str(code_): sum(s.status == code_ for s in sent) for code_ in sorted({s.status for s in sent})},
        "retain_p50_ms": round(1000 * statistics.median(latencies), 1),
        "retain_p99_ms": round(1000 * percentile(latencies, 0.99), 1),
        "kills": per_kill,
        "lost": result.lost,
        "failed": result.failed,
        "duplicate_memories": result.duplicate_memories,
        "pending_intake": result.pending_intake,
        "sigterm_with_broker_down_s": round(sigterm_s, 1),
        "sigterm_exit_code": code,
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    result = asyncio.run(run(args))
    print(f"{result['sent']} retains at {result['rate']:g}/s over {result['seconds']:g} s: statuses {result['statuses']}, "
          f"p50 {result['retain_p50_ms']} ms, p99 {result['retain_p99_ms']} ms")
    for i, kill in enumerate(result["kills"], 1):
        print(f"kill {i}: broker back after {kill['broker_back_s']} s; {kill['retains_while_down']} retains meanwhile "
              f"(statuses {kill['statuses_while_down']}, p50 {kill['retain_p50_ms_while_down']} ms, max "
              f"{kill['retain_max_ms_while_down']} ms); turns of the first second after the kill processed by "
              f"{kill['recovered_s']} s; {kill['log_lines']} log lines")
        for line in kill["log_excerpt"]:
            print(f"    {line}")
    print(f"lost {result['lost']}, failed {result['failed']}, duplicate memories {result['duplicate_memories']}, "
          f"intake left {result['pending_intake']}; SIGTERM with the broker down: exit {result['sigterm_exit_code']} "
          f"in {result['sigterm_with_broker_down_s']} s")
    if "--json" in (argv or sys.argv):
        print(json.dumps(result))
    return 0 if result["lost"] == 0 and result["duplicate_memories"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
