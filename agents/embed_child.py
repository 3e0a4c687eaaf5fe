"""The entry point of an embedding child process (`agents.embed_process`), light on purpose.

Ctrl-C in a terminal signals the whole foreground process group, children included. The parent
stops its model processes itself (it sends them `None` and joins them), so a child ignores SIGINT
from its first line: before the runtime and the model are imported, not after, or an early
Ctrl-C would still print a `KeyboardInterrupt` traceback per child.
"""

from __future__ import annotations

import signal
from multiprocessing.connection import Connection


def serve_child(conn: Connection, threads: int, batch_size: int, parent_pid: int) -> None:
    """Ignore SIGINT, then load the model and serve requests (`agents.embed_process._serve`),
    dying with the parent (`parent_pid`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from agents.embed_process import _serve

    _serve(conn, threads, batch_size, parent_pid)
