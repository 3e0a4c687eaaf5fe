"""Child processes die with their parent: the death signal for a binary (the broker), the watch
thread for a Python child (the model), and a stale broker recorded in a pid file is stopped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from streams.broker import EmbeddedBroker, running, stop_stale

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")

#: A parent that starts one child as the given code says, prints the child's pid, then waits.
PARENT = """
import subprocess, sys, time
from streams.lifeline import die_with_parent_preexec
{start}
print(child.pid, flush=True)
time.sleep(120)
"""

WITH_DEATH_SIGNAL = "child = subprocess.Popen(['sleep', '120'], preexec_fn=die_with_parent_preexec())"
WITHOUT = "child = subprocess.Popen(['sleep', '120'])"
WATCHING = (
    "import os\n"
    "code = 'import os, time; from streams.lifeline import watch_parent; watch_parent(os.getppid()); "
    "print(1, flush=True); time.sleep(120)'\n"
    "child = subprocess.Popen([sys.executable, '-c', code], stdout=subprocess.PIPE)\n"
    "child.stdout.readline()"
)


def child_after_parent_killed(start: str) -> int:
    """Start the parent, SIGKILL it once its child runs; the child's pid."""
    parent = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(PARENT.format(start=start))],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    with parent:
        child = int(parent.stdout.readline())
        parent.send_signal(signal.SIGKILL)
    return child


def gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not running(pid)


def kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def test_a_child_with_the_death_signal_dies_with_its_killed_parent():
    child = child_after_parent_killed(WITH_DEATH_SIGNAL)
    assert gone_within(child, 2.0)


def test_without_it_the_child_is_orphaned():
    """The control: the same child without the death signal outlives its parent."""
    child = child_after_parent_killed(WITHOUT)
    try:
        assert not gone_within(child, 1.0)
    finally:
        kill(child)


def test_a_python_child_watching_its_parent_exits_when_the_parent_is_killed():
    child = child_after_parent_killed(WATCHING)
    assert gone_within(child, 2.0)


def test_a_stale_broker_from_a_pid_file_is_stopped(tmp_path):
    pid_file = tmp_path / "broker.pid"
    broker = EmbeddedBroker().start()
    try:
        pid_file.write_text(f"{broker.pid}\n")
        assert stop_stale(pid_file) == broker.pid
        assert not running(broker.pid)
        assert not pid_file.exists()
    finally:
        broker.stop()


def test_a_pid_file_naming_another_program_is_left_alone(tmp_path):
    other = subprocess.Popen(["sleep", "30"])
    pid_file = tmp_path / "broker.pid"
    try:
        pid_file.write_text(f"{other.pid}\n")
        assert stop_stale(pid_file) is None
        assert running(other.pid)
        assert stop_stale(tmp_path / "missing.pid") is None
    finally:
        other.kill()
        other.wait()
