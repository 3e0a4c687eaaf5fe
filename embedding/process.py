"""The embedding model in a process of its own, for the write path.

Why: the ingest worker's Python (faust, extraction, SQL) holds the GIL most of the time, and the
model's thread needs the GIL between every call it makes; on two cores the two then take turns
instead of running side by side, well below the model's own rate (`docs/benchmarks.md`,
"Ingest"; its history in git). In its own process the model never waits for the worker's GIL.

Texts go to the child over a pipe and float32 vectors come back (384 floats each: ~1.5 KB per
memory). A child that dies is started again on the next call; that call raises
`EmbedderUnavailableError`, which the pipeline retries like a sink outage. A child exits within one
poll of the lifeline after its parent's death, even in the middle of a batch (`streams.lifeline.watch_parent`).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import queue
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from embedding.child import serve_child
from embedding.embedder import DIM, MODEL_ID, checked_texts
from embedding.errors import EmbedderUnavailableError

log = logging.getLogger(__name__)

#: The model yields the CPU to the worker's own process: that one process reads, extracts and
#: writes every turn (GIL-bound), while the model's work is spread over the children.
#: Full batches of a few lengths, run once before the child says it is ready (~1 s).
#: How long the child may take to import the runtime and load the model.
START_TIMEOUT_S = 120.0


class ProcessEmbedder:
    """An `Embedder` whose model runs in child processes; each call goes to whichever child is idle.

    With two children, two batches are embedded side by side on two cores, and each model runs
    single-threaded: no intra-op barrier waits on a core the worker's Python is using.
    """

    dim: int = DIM
    model_id: str = MODEL_ID

    def __init__(self, processes: int = 2, threads: int = 1, batch_size: int = 64) -> None:
        if processes < 1 or threads < 1 or batch_size < 1:
            raise ValueError(
                f"processes, threads and batch_size must be >= 1, got {processes}, {threads}, {batch_size}"
            )
        with ThreadPoolExecutor(max_workers=processes) as starting:  # the children load side by side
            self._children = list(starting.map(lambda _: ModelProcess(threads, batch_size), range(processes)))
        self._idle: queue.SimpleQueue[ModelProcess] = queue.SimpleQueue()
        for child in self._children:
            self._idle.put(child)
        self._executor = ThreadPoolExecutor(max_workers=processes, thread_name_prefix="beliefstream-embed-ipc")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Encode `texts` in order in an idle child (float32, unit length)."""
        texts = checked_texts(texts)
        if not texts:
            return np.empty((0, self.dim), dtype=np.float32)
        child = self._idle.get()
        try:
            return child.embed(texts)
        finally:
            self._idle.put(child)

    async def aembed(self, texts: Sequence[str]) -> np.ndarray:
        """`embed` from a helper thread, so the event loop stays free while a child works."""
        texts = checked_texts(texts)
        if not texts:
            return np.empty((0, self.dim), dtype=np.float32)
        return await asyncio.get_running_loop().run_in_executor(self._executor, self.embed, texts)

    def close(self) -> None:
        """Stop the children (safe to call twice)."""
        for child in self._children:
            child.close()
        self._executor.shutdown(wait=False)

    @property
    def pids(self) -> list[int | None]:
        """The children's process ids (None for one that is not running)."""
        return [child.pid for child in self._children]


class ModelProcess:
    """One child process holding the model; requests go over its pipe one at a time."""

    def __init__(self, threads: int, batch_size: int) -> None:
        self.threads = threads
        self.batch_size = batch_size
        self._lock = threading.Lock()  # one request on the pipe at a time
        self._child: tuple[Any, Connection] | None = None
        with self._lock:
            self._start()

    def embed(self, texts: list[str]) -> np.ndarray:
        """The vectors of `texts` (already checked); a child found dead is restarted on the next call."""
        with self._lock:
            if self._child is None:
                self._start()
            _, conn = self._child
            try:
                conn.send(texts)
                kind, payload = conn.recv()
            except (EOFError, OSError) as exc:
                self._stop_child()
                raise EmbedderUnavailableError(
                    f"the embedding process stopped ({exc or type(exc).__name__}); it restarts on the next call"
                ) from exc
        if kind != "ok":
            raise RuntimeError(f"the embedding process failed: {payload}")
        return payload

    def close(self) -> None:
        """Stop the child process (safe to call twice)."""
        with self._lock:
            self._stop_child()

    @property
    def pid(self) -> int | None:
        """The child's process id, while it runs."""
        return self._child[0].pid if self._child is not None else None

    def _start(self) -> None:
        context = multiprocessing.get_context("spawn")  # fork would copy the worker's threads and loop
        conn, child_conn = context.Pipe()
        process = context.Process(
            target=serve_child,
            args=(child_conn, self.threads, self.batch_size, os.getpid()),
            name="beliefstream-embedder",
            daemon=True,
        )
        process.start()
        child_conn.close()
        if not conn.poll(START_TIMEOUT_S):
            process.kill()
            raise EmbedderUnavailableError(f"the embedding process did not start within {START_TIMEOUT_S:.0f}s")
        try:
            kind, payload = conn.recv()
        except EOFError as exc:
            raise EmbedderUnavailableError("the embedding process exited while loading the model") from exc
        if kind != "ready":
            process.join(5)
            raise EmbedderUnavailableError(payload)
        self._child = (process, conn)

    def _stop_child(self) -> None:
        child, self._child = self._child, None
        if child is None:
            return
        process, conn = child
        try:
            conn.send(None)
        except (OSError, ValueError):
            pass
        conn.close()
        process.join(5)
        if process.is_alive():
            log.warning("the embedding process did not stop in 5s; killing it")
            process.kill()
            process.join(5)
