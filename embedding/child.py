"""The entry point of an embedding child process (`embedding.process`), light on purpose: it
imports the model only once SIGINT is ignored, and serves it until told to stop.

Ctrl-C in a terminal signals the whole foreground process group, children included. The parent
stops its model processes itself (it sends them `None` and joins them), so a child ignores SIGINT
from its first line: before the runtime and the model are imported, not after, or an early
Ctrl-C would still print a `KeyboardInterrupt` traceback per child.
"""

from __future__ import annotations

import os
import signal
from multiprocessing.connection import Connection

#: Below the parent's priority: the worker's event loop wins a contended core.
CHILD_NICENESS = 10

#: Texts of the lengths a batch holds, run once before the first real batch.
_WARM_UP = [" ".join(["memory"] * n) for n in (4, 8, 12, 16, 24, 32, 48) for _ in range(64)]


def serve_child(conn: Connection, threads: int, batch_size: int, parent_pid: int) -> None:
    """Ignore SIGINT, then load the model and serve requests, dying with the parent (`parent_pid`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _serve(conn, threads, batch_size, parent_pid)


def _serve(conn: Connection, threads: int, batch_size: int, parent_pid: int) -> None:
    """The child: load the model, then answer each list of texts with its vectors until told to stop."""
    from streams.lifeline import watch_parent

    watch_parent(parent_pid)  # first: a parent killed while the model loads takes the child along
    from embedding.embedder import OnnxMiniLmEmbedder  # the runtime and the model, now that SIGINT is ignored
    from embedding.errors import EmbedderUnavailableError

    os.nice(CHILD_NICENESS)
    try:
        embedder = OnnxMiniLmEmbedder(threads=threads, batch_size=batch_size)
    except EmbedderUnavailableError as exc:
        conn.send(("error", str(exc)))
        return
    embedder.embed(_WARM_UP)  # the first run of a session allocates and tunes: not on a real batch
    conn.send(("ready", None))
    while True:
        try:
            texts = conn.recv()
        except (EOFError, OSError):
            return  # the parent is gone
        if texts is None:
            return
        try:
            conn.send(("ok", embedder.embed(texts)))
        except Exception as exc:  # noqa: BLE001 - reported to the caller, the child keeps serving
            conn.send(("error", f"{type(exc).__name__}: {exc}"))

