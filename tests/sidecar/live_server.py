"""The sidecar served by uvicorn on a free port, in a thread of its own, for the blocking client.

The store and the vector index are opened inside the server's event loop: async engines and the
Edge shard's worker belong to the loop that started them.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from pathlib import Path

import uvicorn
from projection import projector_of

from embedding.embedder import load_default_embedder
from sidecar.app import create_app
from sinks.sql.store import SqlMemoryStore
from sinks.vectors.edge import EdgeVectorIndex
from streams.settings import Settings


class LiveSidecar:
    """`with LiveSidecar(tmp_path, settings, publisher) as url:` serves until the block ends."""

    def __init__(self, data_dir: Path, settings: Settings, publisher, start_timeout_s: float = 30.0) -> None:
        self.data_dir = data_dir
        self.settings = settings
        self.publisher = publisher
        self.start_timeout_s = start_timeout_s
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.bind(("127.0.0.1", 0))
        self._server: uvicorn.Server | None = None
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="live-sidecar", daemon=True)

    @property
    def url(self) -> str:
        host, port = self._socket.getsockname()
        return f"http://{host}:{port}"

    def __enter__(self) -> str:
        self._thread.start()
        deadline = time.monotonic() + self.start_timeout_s
        while not (self._server is not None and self._server.started):
            if self._failure is not None or not self._thread.is_alive():
                raise RuntimeError("the live sidecar did not start") from self._failure
            if time.monotonic() > deadline:
                raise TimeoutError("the live sidecar did not start in time")
            time.sleep(0.01)
        return self.url

    def __exit__(self, *_exc) -> None:
        if self._server is not None:
            self._server.should_exit = True
        self._thread.join(timeout=30)
        self._socket.close()
        if self._failure is not None:
            raise RuntimeError("the live sidecar failed") from self._failure

    def _run(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as exc:  # reported to the test thread in __exit__
            self._failure = exc

    async def _serve(self) -> None:
        store = SqlMemoryStore(f"sqlite+aiosqlite:///{(self.data_dir / 'live.db').as_posix()}")
        vectors = EdgeVectorIndex(self.data_dir / "live-vectors", dim=384)
        await store.setup()
        await vectors.setup()
        try:
            projector = projector_of(store, vectors)
            app = create_app(
                self.settings,
                store,
                self.publisher,
                vectors,
                embedder=load_default_embedder(),
                contested=store,
                projector=projector,
            )
            config = uvicorn.Config(app, log_level="warning", lifespan="off")
            self._server = uvicorn.Server(config)
            await self._server.serve(sockets=[self._socket])
        finally:
            await vectors.close()
            await store.close()
