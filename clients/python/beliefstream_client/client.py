"""`MemoryClient` (async) and `SyncMemoryClient`: the sidecar's endpoints (contract §3) for applications.

    async with MemoryClient("http://127.0.0.1:8080", api_key) as memory:
        [job_id] = await memory.retain("u-42", "I always use dark mode.")
        await memory.wait(job_id)
        context = await memory.recall("u-42", "how should the UI look?")

Production paths retain turns and let the pipeline extract (`retain` answers job ids at once);
`store` is the direct insert, for migrations, seeding and tests. Every failure is a
`MemoryClientError(status, code, message)`; the operations themselves live in
`beliefstream_client.calls`, written once for both clients.

    Exception
    └── MemoryClientError       status (0 = no HTTP answer), code, message, retry_after
        └── JobWaitTimeout      `wait` ran out of time with the job still queued
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Mapping
from types import TracebackType
from typing import Any

import httpx

from beliefstream_client import calls
from beliefstream_client.calls import Call, JobWaitTimeout, Json, MemoryClientError, Operation

__all__ = ["JobWaitTimeout", "MemoryClient", "MemoryClientError", "SyncMemoryClient"]

DEFAULT_TIMEOUT_S = 10.0


def _headers(api_key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}", "Accept": "application/json"}


def _request(http: httpx.Client | httpx.AsyncClient, call: Call) -> Any:
    return http.request(call.method, call.path, json=call.json, params=call.params)


class MemoryClient:
    """Async client; pass `transport=httpx.ASGITransport(app)` to talk to an app in-process."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._http = httpx.AsyncClient(
            base_url=base_url, headers=_headers(api_key), timeout=timeout_s, transport=transport
        )

    async def _run(self, operation: Operation) -> Any:
        reply: Any = None
        while True:
            finished, step = calls.advance(operation, reply)
            if finished:
                return step
            if isinstance(step, calls.Pause):
                await asyncio.sleep(step.seconds)
                reply = None
                continue
            with calls.reaching():
                reply = calls.answer(await _request(self._http, step))

    async def retain(
        self, user_id: str, text: str, role: str = "user", turn_id: str | None = None, **fields: Any
    ) -> list[str]:
        """Retain one turn; its job ids (one). A `turn_id` makes a retry harmless (default: generated).

        `fields`: `agent_id`, `session_id`, `ts` (datetime or ISO string), `metadata`.
        """
        return await self._run(calls.retain(user_id, text, role, turn_id, **fields))

    async def retain_many(self, turns: Iterable[Mapping[str, Any]]) -> list[str]:
        """Retain turns in one request (each a contract §1 turn without tenant); one job id each."""
        return await self._run(calls.retain_many(turns))

    async def job(self, job_id: str) -> Json:
        return await self._run(calls.job(job_id))

    async def wait(self, job_id: str, timeout: float = 30.0, interval: float = 0.1) -> Json:
        """The job once it is no longer queued; `JobWaitTimeout` after `timeout` seconds."""
        return await self._run(calls.wait(job_id, timeout, interval))

    async def recall(self, user_id: str, query: str, **options: Any) -> Json:
        """`POST /v1/recall`; options as contract §3 (`budget_tokens`, `limit`, `live_intent`, ...)."""
        return await self._run(calls.recall(user_id, query, options))

    async def reflect(self, user_id: str, question: str, **options: Any) -> Json:
        return await self._run(calls.reflect(user_id, question, options))

    async def store(self, memory: Mapping[str, Any]) -> Json:
        """Direct insert of a fully specified memory (tests, migration); the stored record."""
        return await self._run(calls.store(memory))

    async def memory(self, memory_id: str) -> Json:
        """One memory with its supersession history."""
        return await self._run(calls.memory(memory_id))

    async def edit(self, memory_id: str, **changes: Any) -> Json:
        """`PATCH /v1/memories/{id}`: correct `text`, `value`, `importance`, `confidence` or `topic`.
        The new version, with the old one in its `history`."""
        return await self._run(calls.edit(memory_id, changes))

    async def users(self, page_size: int = 100) -> list[Json]:
        """Every user of the key's tenant with their memories counted by state (tenant keys only)."""
        return await self._run(calls.users(page_size))

    async def attribute_history(self, user_id: str, attribute: str, entity: str | None = None) -> Json:
        """Every value `attribute` held for the user, oldest first, and the `current` ones."""
        return await self._run(calls.attribute_history(user_id, attribute, entity))

    async def consolidate(self, topic: str, **options: Any) -> Json:
        """`POST /v1/consolidate` (tenant keys only); options `user_id`, `similarity_threshold`, `dry_run`
        (the sidecar's default: True, a dry run). The diff."""
        return await self._run(calls.consolidate(topic, options))

    async def forget(self, memory_id: str) -> Json:
        """Revoke one memory: it is never recalled again."""
        return await self._run(calls.forget(memory_id))

    async def forget_user(self, user_id: str) -> Json:
        """Erase every memory, job and vector of the user (needs a key not bound to an agent)."""
        return await self._run(calls.forget_user(user_id))

    async def memories(self, user_id: str, state: str = "active", page_size: int = 100) -> list[Json]:
        """Every memory of the user in `state` (`all` for any), following cursors to the last page."""
        return await self._run(calls.memories(user_id, state, page_size))

    async def close(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> MemoryClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()


class SyncMemoryClient:
    """The same operations, blocking; for scripts, notebooks and synchronous applications."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._http = httpx.Client(
            base_url=base_url, headers=_headers(api_key), timeout=timeout_s, transport=transport
        )

    def _run(self, operation: Operation) -> Any:
        reply: Any = None
        while True:
            finished, step = calls.advance(operation, reply)
            if finished:
                return step
            if isinstance(step, calls.Pause):
                time.sleep(step.seconds)
                reply = None
                continue
            with calls.reaching():
                reply = calls.answer(_request(self._http, step))

    def retain(
        self, user_id: str, text: str, role: str = "user", turn_id: str | None = None, **fields: Any
    ) -> list[str]:
        return self._run(calls.retain(user_id, text, role, turn_id, **fields))

    def retain_many(self, turns: Iterable[Mapping[str, Any]]) -> list[str]:
        return self._run(calls.retain_many(turns))

    def job(self, job_id: str) -> Json:
        return self._run(calls.job(job_id))

    def wait(self, job_id: str, timeout: float = 30.0, interval: float = 0.1) -> Json:
        return self._run(calls.wait(job_id, timeout, interval))

    def recall(self, user_id: str, query: str, **options: Any) -> Json:
        return self._run(calls.recall(user_id, query, options))

    def reflect(self, user_id: str, question: str, **options: Any) -> Json:
        return self._run(calls.reflect(user_id, question, options))

    def store(self, memory: Mapping[str, Any]) -> Json:
        return self._run(calls.store(memory))

    def memory(self, memory_id: str) -> Json:
        return self._run(calls.memory(memory_id))

    def edit(self, memory_id: str, **changes: Any) -> Json:
        return self._run(calls.edit(memory_id, changes))

    def users(self, page_size: int = 100) -> list[Json]:
        return self._run(calls.users(page_size))

    def attribute_history(self, user_id: str, attribute: str, entity: str | None = None) -> Json:
        return self._run(calls.attribute_history(user_id, attribute, entity))

    def consolidate(self, topic: str, **options: Any) -> Json:
        return self._run(calls.consolidate(topic, options))

    def forget(self, memory_id: str) -> Json:
        return self._run(calls.forget(memory_id))

    def forget_user(self, user_id: str) -> Json:
        return self._run(calls.forget_user(user_id))

    def memories(self, user_id: str, state: str = "active", page_size: int = 100) -> list[Json]:
        return self._run(calls.memories(user_id, state, page_size))

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> SyncMemoryClient:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
