"""Child processes that die with their parent, so a SIGKILLed `dev` leaves no orphan behind.

Two means, because Linux ties `PR_SET_PDEATHSIG` to the *thread* that started the child, not to
the process: the embedded broker (a binary we cannot change) gets the death signal through
`preexec_fn`, and is started from the main thread; the model processes are started from helper
threads that come and go, so each watches its parent from a thread of its own instead.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Callable

PR_SET_PDEATHSIG = 1


def _prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
        return None


def die_with_parent_preexec(sig: signal.Signals = signal.SIGKILL) -> Callable[[], None] | None:
    """A `preexec_fn` for `subprocess.Popen`: the kernel sends `sig` to the child when the thread
    that started it ends (None off Linux). Start the child from a thread that lives as long as
    the process (the main thread, or the event loop's)."""
    prctl = _prctl()  # resolved before the fork: the child only calls it
    if prctl is None:
        return None
    parent = os.getpid()

    def preexec() -> None:
        prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the death signal was armed
            os._exit(1)

    return preexec


def watch_parent(parent_pid: int, interval_s: float = 0.1) -> threading.Thread:
    """In a Python child: exit at once (no cleanup) when `parent_pid` is no longer the parent."""

    def watch() -> None:
        while True:
            if os.getppid() != parent_pid:
                os._exit(1)
            time.sleep(interval_s)

    thread = threading.Thread(target=watch, name="beliefstream-lifeline", daemon=True)
    thread.start()
    return thread
