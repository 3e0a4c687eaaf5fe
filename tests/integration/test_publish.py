"""`beliefstream publish`: every line reaches the turns topic, keyed tenant:user; bad lines go as they are."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from integration.harness import read_topic

from streams.broker import EmbeddedBroker
from streams.publish import publish_file

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


async def test_publish_file_sends_every_line_keyed(settings, tmp_path):
    lines = [
        json.dumps({"turn_id": "t-1", "user_id": "u-1", "role": "user", "text": "I live in Oslo."}),
        json.dumps({"turn_id": "t-2", "tenant_id": "other", "user_id": "u-2", "role": "user", "text": "Hi"}),
        "{not json",
        "",
    ]
    path = tmp_path / "turns.jsonl"
    path.write_text("\n".join(lines) + "\n")
    result = await publish_file(path, settings, settings.broker, tenant="acme")
    assert (result.sent, result.unparsed) == (3, 1)
    records = await read_topic(settings, settings.turns_topic, expect=3)
    by_key = {key: value for key, value in records}
    assert json.loads(by_key[b"acme:u-1"])["tenant_id"] == "acme"  # --tenant fills a missing tenant
    assert json.loads(by_key[b"other:u-2"])["tenant_id"] == "other"  # and never overrides one
    assert by_key[None] == b"{not json"  # the pipeline sends it to the DLQ with the reason


def _publish_killed_mid_run(tmp_path, durable: bool) -> tuple[int, str, float]:
    """Run `beliefstream publish` over a large file against a broker of its own, SIGKILL the broker
    once lines are acknowledged, and answer (exit code, stderr, seconds from the kill to the exit)."""
    path = tmp_path / "turns.jsonl"
    line = {"user_id": "u-1", "role": "user", "text": "I live in Oslo and I walk to work every day."}
    path.write_text("".join(json.dumps({**line, "turn_id": f"t-{i}"}) + "\n" for i in range(300_000)))
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("BELIEFSTREAM_")}
    env["BELIEFSTREAM_BROKER_ACK_TIMEOUT_S"] = "3"
    with EmbeddedBroker() as broker:
        if durable:  # as a running `dev` records them: the intake first, then its broker
            (data_dir / "broker.url").write_text(broker.url + "\n")
            (data_dir / "sql.url").write_text(f"sqlite+aiosqlite:///{data_dir / 'memory.db'}\n")
        else:
            env["BELIEFSTREAM_BROKER"] = broker.url
        process = subprocess.Popen(
            [sys.executable, "-m", "launch.cli", "publish", str(path), "--data-dir", str(data_dir), "--tenant", "acme"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT,
        )
        progress = b""
        while not re.search(rb"publishing:\s+\d+%.*\| *[1-9]\d*/", progress):  # some lines acknowledged
            chunk = process.stderr.read1(4096)
            assert chunk, f"publish ended early: {progress.decode(errors='replace')}"
            progress += chunk
        os.kill(broker.pid, signal.SIGKILL)
        killed = time.monotonic()
        _, rest = process.communicate(timeout=120)
        elapsed = time.monotonic() - killed
    err = (progress + rest).decode(errors="replace")
    return process.returncode, err, elapsed


@pytest.mark.parametrize("durable", [False, True], ids=["to a cluster", "into a running dev"])
def test_publish_gives_up_in_seconds_when_the_broker_dies(tmp_path, durable):
    code, err, elapsed = _publish_killed_mid_run(tmp_path, durable)
    last = err.replace("\r", "\n").strip().splitlines()[-1]
    assert code != 0 and "Traceback" not in err, err[-2000:]
    assert last.startswith("beliefstream: ") and "stopped answering" in last, last
    assert elapsed < 3 * 3 + 10, f"publish took {elapsed:.0f}s to give up"  # a few ack timeouts, not minutes
