"""202 means durable: SIGKILL `beliefstream dev` in the middle of an ingest, restart it on the same
data dir, and every acknowledged turn ends done or skipped exactly once; the broker and the model
processes die with `dev`. The full version (ten kills, 10k turns) is `bench/crash.py`."""

from __future__ import annotations

import pytest

from bench.crashing import (
    Dev,
    RetainClient,
    job_states,
    make_turns,
    outcome,
    publish,
    sql_url_of,
    wait_finished,
    wait_gone,
    write_jsonl,
)
from streams.broker import free_port

pytestmark = pytest.mark.integration

RETAINED, PUBLISHED = 200, 100


async def test_acknowledged_turns_survive_a_sigkill_of_dev(tmp_path, isolated_sql_url):
    """Turns through `/v1/retain` and `beliefstream publish`, one SIGKILL in the middle, one restart."""
    retained = make_turns(RETAINED, prefix="r")
    published = make_turns(PUBLISHED, prefix="p")
    path = write_jsonl(tmp_path / "turns.jsonl", published)
    dev = Dev(tmp_path / "data", free_port(), isolated_sql_url, env={"BELIEFSTREAM_BATCH_SIZE": "32"})
    client = RetainClient(dev)
    url = sql_url_of(dev)
    dev.start()
    try:
        await client.send(retained[:100])
        sent = publish(dev, path)
        assert sent.returncode == 0, sent.stderr
        await client.send(retained[100:150])  # one burst the worker cannot have finished...
        broker_pid = int((dev.data_dir / "broker.pid").read_text())
        assert dev.kill() == []  # ...when dev dies; the broker and the model processes die with it
        assert wait_gone([broker_pid]) == []
        acknowledged = client.acknowledged + [t["turn_id"] for t in published]
        states = await job_states(url, acknowledged)
        assert sum(s == "queued" for s in states.values()) > 0, "the kill came after the worker finished"

        dev.start()  # same data dir: the intake is re-published
        await client.send(retained[150:])
        again = publish(dev, path)  # publishing the same file again processes nothing twice
        assert again.returncode == 0, again.stderr
        acknowledged = client.acknowledged + [t["turn_id"] for t in published]
        await wait_finished(url, acknowledged, timeout=300)
    finally:
        dev.stop()

    result = await outcome(url, acknowledged)
    assert result.acknowledged == RETAINED + PUBLISHED
    assert (result.lost, result.failed, result.duplicate_memories) == (0, 0, 0)
    assert result.finished == RETAINED + PUBLISHED
    assert result.pending_intake == 0  # each turn left the intake with its job's last transaction
