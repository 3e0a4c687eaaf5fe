"""`beliefstream dev` as a newcomer runs it: one command, memories appear, Ctrl-C stops everything;
`beliefstream mcp` serves its tools over stdio to an MCP client while it runs."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import CallToolResult
from prometheus_client.parser import text_string_to_metric_families

from streams.broker import free_port
from tests.deploy.test_deploy_files import _METRIC, _alert_rules, _dashboard_exprs
from tests.webhook_receiver import SECRET, Receiver

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def start_dev(data_dir: Path, port: int, **settings: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BELIEFSTREAM_")}
    env.update({f"BELIEFSTREAM_{name.upper()}": value for name, value in settings.items()})
    return subprocess.Popen(
        [sys.executable, "-m", "launch.cli", "dev", "--port", str(port), "--data-dir", str(data_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
        start_new_session=True,  # its own process group, as in a terminal
    )


def wait_ready(process: subprocess.Popen, port: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"dev exited early: {process.stderr.read()}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError("dev did not become ready")


def stop(process: subprocess.Popen, sig: signal.Signals) -> tuple[int, str, str]:
    """SIGTERM to the process; SIGINT to its whole group, as Ctrl-C in a terminal (the model
    processes get it too)."""
    if sig is signal.SIGINT:
        os.killpg(process.pid, sig)
    else:
        process.send_signal(sig)
    out, err = process.communicate(timeout=90)  # a worker still loading its models finishes that first
    return process.returncode, out, err


async def call_mcp(base: str, key: str, tool: str, arguments: dict) -> tuple[set[str], CallToolResult]:
    """Launch `beliefstream mcp` as an MCP client does (stdio), list its tools and call one."""
    command = StdioServerParameters(
        command=sys.executable, args=["-m", "launch.cli", "mcp", "--url", base, "--key", key], cwd=ROOT
    )
    async with stdio_client(command) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
        return {t.name for t in listed.tools}, await session.call_tool(tool, arguments)


async def mcp_stores_and_recalls(base: str, key: str) -> None:
    """`beliefstream mcp` against the running dev sidecar: store, the job finishes, recall finds it."""
    tools, stored = await call_mcp(base, key, "store_memory", {"user_id": "u-7", "text": "I'm allergic to shellfish."})
    assert tools == {"store_memory", "recall_memories", "consolidate_memories", "forget"}
    assert not stored.is_error, stored.content
    job_id = stored.structured_content["job_id"]
    async with httpx.AsyncClient(base_url=base, headers={"Authorization": f"Bearer {key}"}) as http:
        deadline = time.monotonic() + 30
        while (await http.get(f"/v1/jobs/{job_id}")).json()["state"] == "queued":
            assert time.monotonic() < deadline, "the job never finished"
            await asyncio.sleep(0.2)
    query = {"user_id": "u-7", "query": "what foods should I avoid?"}
    deadline = time.monotonic() + 10  # the vector point follows the SQL commit by a moment
    while True:
        _, recalled = await call_mcp(base, key, "recall_memories", query)
        assert not recalled.is_error, recalled.content
        texts = [m["text"] for m in recalled.structured_content["memories"] if m["type"] != "episode"]
        if texts or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.2)
    assert len(texts) == 1 and "shellfish" in texts[0].lower()

    _, refused = await call_mcp(base, "not-a-key", "recall_memories", query)
    [error] = refused.content  # the sidecar's code and message, as `/mcp` reports them; no traceback
    assert refused.is_error and "unauthorized: a valid API key is required" in error.text
    assert "Traceback" not in error.text


def assert_metrics_page_serves_the_dashboard(page: str) -> None:
    """Every family the Grafana dashboard and the alert rules use is on dev's one /metrics page,
    and the turn and the recalls just made are counted there."""
    families = {family.name: family for family in text_string_to_metric_families(page)}
    exprs = [rule["expr"] for rule in _alert_rules()] + _dashboard_exprs()
    for name in {name for expr in exprs for name in _METRIC.findall(expr)}:
        base = re.sub(r"_(total|bucket|sum|count|created)$", "", name)
        assert base in families or name in families, f"{name} is not on dev's /metrics"

    def value(family: str, sample: str) -> float:
        return sum(s.value for s in families[family].samples if s.name == sample)

    assert value("beliefstream_turns_consumed", "beliefstream_turns_consumed_total") >= 1
    assert value("beliefstream_recall_duration_seconds", "beliefstream_recall_duration_seconds_count") >= 1
    assert {s.labels["partition"] for s in families["beliefstream_consumer_lag"].samples}  # read at start


def test_dev_runs_end_to_end_and_stops_cleanly(tmp_path):
    data_dir, port = tmp_path / "data", free_port()
    receiver = Receiver(fail_first=1).__enter__()  # a platform's webhook endpoint, failing once
    process = start_dev(data_dir, port, webhook_urls=json.dumps([receiver.url]), webhook_secret=SECRET,
                        webhook_retry_initial_s="0.2")
    try:
        wait_ready(process, port)
        key = (data_dir / "dev-api-key").read_text().strip()
        headers = {"Authorization": f"Bearer {key}"}
        base = f"http://127.0.0.1:{port}"
        body = {"turn_id": "t-1", "user_id": "u-42", "role": "user", "text": "I'm allergic to peanuts."}
        job_id = httpx.post(f"{base}/v1/retain", json=body, headers=headers).json()["job_ids"][0]
        deadline = time.monotonic() + 90  # the sidecar is ready before the worker has joined its group
        while httpx.get(f"{base}/v1/jobs/{job_id}", headers=headers).json()["state"] == "queued":
            assert time.monotonic() < deadline, "the job never finished"
            time.sleep(0.2)
        memories = httpx.get(f"{base}/v1/users/u-42/memories", headers=headers).json()["memories"]
        assert [m["attribute"] for m in memories] == ["allergy"]
        def created() -> list[dict]:
            return [r for r in receiver.received if r["event"]["kind"] == "created"]

        def retried() -> bool:  # the delivery the receiver failed came again
            ids = [r["delivery"] for r in receiver.received]
            return len(set(ids)) < len(ids)

        deadline = time.monotonic() + 30  # the events, signed, the failed one retried after the 500
        while not (retried() and created()):
            assert time.monotonic() < deadline, f"webhook not retried: {receiver.received}"
            time.sleep(0.2)
        assert all(r["valid"] for r in receiver.received)
        assert created()[-1]["event"]["memory_id"] == memories[0]["id"]
        assert httpx.get(f"{base}/v1/users/u-42/memories").status_code == 401

        def recall() -> dict:
            body = {"user_id": "u-42", "query": "what foods should I avoid?"}
            return httpx.post(f"{base}/v1/recall", json=body, headers=headers).json()

        recalled = recall()
        deadline = time.monotonic() + 10  # the vector point follows the SQL commit by a moment
        while not recalled["memories"] and time.monotonic() < deadline:
            time.sleep(0.2)
            recalled = recall()
        beliefs = [m for m in recalled["memories"] if m["type"] != "episode"]
        quotes = [m for m in recalled["memories"] if m["type"] == "episode"]
        assert [m["id"] for m in beliefs] == [memories[0]["id"]]  # a safety fact in the food domain
        assert beliefs[0]["citations"] == ["t-1"]
        assert quotes == []  # one item per fact: the turn is the belief's evidence, not a second item
        assert [(e["text"], e["turn_id"]) for e in beliefs[0]["evidence"]] == [("I'm allergic to peanuts.", "t-1")]
        cli = subprocess.run(
            [
                sys.executable,
                "-m",
                "launch.cli",
                "recall",
                "--user",
                "u-42",
                "--data-dir",
                str(data_dir),
                "what foods should I avoid?",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert cli.returncode == 0 and "peanut" in cli.stdout.lower()  # found the service by its record
        assert_metrics_page_serves_the_dashboard(httpx.get(f"{base}/metrics").text)
        recorded = json.loads((data_dir / "service.json").read_text())
        assert recorded["url"] == base and recorded["api_key"] == key and recorded["pid"] == process.pid
        asyncio.run(mcp_stores_and_recalls(base, key))
    finally:
        code, out, err = stop(process, signal.SIGINT)
        receiver.__exit__()
    assert code == 0 and "beliefstream stopped." in out
    assert not (data_dir / "broker.url").exists()  # the embedded broker was stopped and unrecorded
    assert not (data_dir / "service.json").exists()  # client commands no longer find a service
    assert "Traceback" not in err and "KeyboardInterrupt" not in err  # quiet, the model processes' too

    # the belief state outlives the process; the embedded vector shard reopens
    process = start_dev(data_dir, port)
    try:
        wait_ready(process, port)
        memories = httpx.get(f"http://127.0.0.1:{port}/v1/users/u-42/memories", headers=headers).json()[
            "memories"
        ]
        assert len(memories) == 1
    finally:
        code, _, _ = stop(process, signal.SIGTERM)
    assert code == 0


def retained_and_processed(base: str, headers: dict, turn_id: str, user_id: str, text: str, timeout: float = 90) -> str:
    """POST one turn and wait until its job leaves `queued`; answers the final state."""
    body = {"turn_id": turn_id, "user_id": user_id, "role": "user", "text": text}
    answer = httpx.post(f"{base}/v1/retain", json=body, headers=headers, timeout=60)
    assert answer.status_code == 202, answer.text
    job_id = answer.json()["job_ids"][0]
    deadline = time.monotonic() + timeout
    while (state := httpx.get(f"{base}/v1/jobs/{job_id}", headers=headers).json()["state"]) == "queued":
        assert time.monotonic() < deadline, "the job never finished"
        time.sleep(0.2)
    return state


def test_a_second_dev_on_the_same_data_dir_names_the_holder_and_touches_nothing(tmp_path):
    data_dir, port = tmp_path / "data", free_port()
    first = start_dev(data_dir, port)
    try:
        wait_ready(first, port)
        broker_pid = int((data_dir / "broker.pid").read_text())
        broker_url = (data_dir / "broker.url").read_text()
        second = start_dev(data_dir, free_port())
        out, err = second.communicate(timeout=60)
        assert second.returncode != 0
        [line] = err.strip().splitlines()  # one line, no traceback
        assert f"pid {first.pid}" in line and "since" in line and str(data_dir.resolve()) in line, line
        assert "Traceback" not in err and "beliefstream is running" not in out
        # the first dev's broker and records are as they were, and it still ingests
        assert os.path.exists(f"/proc/{broker_pid}") and int((data_dir / "broker.pid").read_text()) == broker_pid
        assert (data_dir / "broker.url").read_text() == broker_url
        key = (data_dir / "dev-api-key").read_text().strip()
        state = retained_and_processed(
            f"http://127.0.0.1:{port}", {"Authorization": f"Bearer {key}"}, "t-lock", "u-lock", "I live in Lisbon."
        )
        assert state == "done"
    finally:
        code, _, _ = stop(first, signal.SIGTERM)
    assert code == 0
    again = start_dev(data_dir, port)  # the lock went with the first process: the next dev starts
    try:
        wait_ready(again, port)
    finally:
        stop(again, signal.SIGTERM)


def broker_metrics(base: str) -> dict[str, float]:
    families = text_string_to_metric_families(httpx.get(f"{base}/metrics").text)
    return {s.name: s.value for f in families if f.name.startswith("beliefstream_broker_") for s in f.samples}


def test_dev_restarts_its_dead_broker_and_retain_never_waits_for_it(tmp_path):
    """The embedded broker SIGKILLed twice: retains answer 202 at once meanwhile, every turn is processed
    once it is back, one line per state change; a SIGTERM right after a kill stops dev in seconds."""
    data_dir, port = tmp_path / "data", free_port()
    first = start_dev(data_dir, port, log_format="console")
    base = f"http://127.0.0.1:{port}"
    try:
        wait_ready(first, port)
        headers = {"Authorization": f"Bearer {(data_dir / 'dev-api-key').read_text().strip()}"}
        assert retained_and_processed(base, headers, "t-0", "u-b", "I live in Lisbon.") == "done"
        assert broker_metrics(base)["beliefstream_broker_up"] == 1
        jobs = []
        for kill in range(2):
            os.kill(int((data_dir / "broker.pid").read_text()), signal.SIGKILL)
            for i in range(8):  # while the broker is down, restarted, and the new worker starts
                started = time.monotonic()
                body = {"turn_id": f"t-{kill}-{i}", "user_id": "u-b", "role": "user", "text": f"I like dish {kill}{i}."}
                answer = httpx.post(f"{base}/v1/retain", json=body, headers=headers, timeout=60)
                assert answer.status_code == 202 and time.monotonic() - started < 5, (answer.status_code, answer.text)
                jobs.append(answer.json()["job_ids"][0])
                time.sleep(0.25)
        deadline = time.monotonic() + 90
        while any(httpx.get(f"{base}/v1/jobs/{j}", headers=headers).json()["state"] == "queued" for j in jobs):
            assert time.monotonic() < deadline, "turns accepted while the broker was away were never processed"
            time.sleep(0.5)
        assert {httpx.get(f"{base}/v1/jobs/{j}", headers=headers).json()["state"] for j in jobs} == {"done"}
        metrics = broker_metrics(base)
        assert metrics["beliefstream_broker_up"] == 1 and metrics["beliefstream_broker_restarts_total"] == 2
        os.kill(int((data_dir / "broker.pid").read_text()), signal.SIGKILL)
        time.sleep(0.1)
        stopping = time.monotonic()
    finally:
        code, _, err = stop(first, signal.SIGTERM)
    assert time.monotonic() - stopping < 20, "SIGTERM with the broker down took too long"
    assert code == 0
    lines = err.splitlines()
    assert sum("the embedded broker exited" in line for line in lines) == 3
    assert sum("the embedded broker is back" in line for line in lines) >= 2
    assert not [line for line in lines if "Unable connect to node" in line]  # no line per poll
