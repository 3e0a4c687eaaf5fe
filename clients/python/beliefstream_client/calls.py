"""What each `MemoryClient` operation asks of the sidecar, written once for the async and sync clients.

This package depends on httpx and the standard library only: an application installs it
(`pip install beliefstream-client`) without the server's stack.

An operation is a generator: it yields `Call`s (an HTTP request) or `Pause`s (a wait between
polls) and receives each call's decoded answer; its return value is the operation's result. The
two clients only differ in how they run one: `await` or block. Paths quote every id, so a user id
with a slash stays one path segment.
"""

from __future__ import annotations

import time
from collections.abc import Generator, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote

import httpx

Json = dict[str, Any]


class MemoryClientError(Exception):
    """The sidecar refused or could not be reached: `status` 0 means no HTTP answer at all.

    `code` and `message` are the sidecar's error body (contract §3); `retry_after` is its
    `Retry-After` in seconds on a 429 or 503, when it sent one.
    """

    def __init__(self, status: int, code: str, message: str, retry_after: float | None = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = retry_after


class JobWaitTimeout(MemoryClientError):
    """`wait` gave up: the job is still queued."""

    def __init__(self, job_id: str, timeout_s: float) -> None:
        super().__init__(0, "timeout", f"job {job_id} still queued after {timeout_s} s")
        self.job_id = job_id


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    json: Any = None
    params: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Pause:
    seconds: float


#: An operation: yields calls and pauses, receives answers, returns its result.
Operation = Generator[Call | Pause, Any, Any]


def segment(value: str) -> str:
    """One path segment, whatever the id contains."""
    return quote(value, safe="")


def answer(response: httpx.Response) -> Any:
    """The decoded JSON of a success; `MemoryClientError` with the sidecar's code otherwise."""
    if response.is_success:
        return response.json() if response.content else None
    code, message = f"http_{response.status_code}", response.text[:500]
    try:
        error = response.json()["error"]
        code, message = str(error["code"]), str(error["message"])
    except (ValueError, KeyError, TypeError):
        pass
    retry_after = response.headers.get("Retry-After")
    seconds = float(retry_after) if retry_after and retry_after.isdigit() else None
    raise MemoryClientError(response.status_code, code, message, seconds)


@contextmanager
def reaching() -> Iterator[None]:
    """A connection, timeout or protocol failure as `MemoryClientError` with status 0."""
    try:
        yield
    except httpx.TransportError as exc:
        raise MemoryClientError(0, "unreachable", f"{type(exc).__name__}: {exc}") from exc


def advance(operation: Operation, reply: Any) -> tuple[bool, Any]:
    """Send `reply` in: `(False, next step)`, or `(True, result)` once the operation returned."""
    try:
        return False, operation.send(reply)
    except StopIteration as done:
        return True, done.value


def _turn(
    user_id: str,
    text: str,
    role: str = "user",
    turn_id: str | None = None,
    *,
    agent_id: str | None = None,
    session_id: str | None = None,
    ts: datetime | str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> Json:
    turn: Json = {"user_id": user_id, "text": text, "role": role}
    optional = {"turn_id": turn_id, "agent_id": agent_id, "session_id": session_id, "metadata": metadata}
    turn.update({k: v for k, v in optional.items() if v is not None})
    if ts is not None:
        turn["ts"] = ts.isoformat() if isinstance(ts, datetime) else ts
    return turn


def retain(user_id: str, text: str, role: str, turn_id: str | None, **fields: Any) -> Operation:
    accepted = yield Call("POST", "/v1/retain", _turn(user_id, text, role, turn_id, **fields))
    return accepted["job_ids"]


def retain_many(turns: Iterable[Mapping[str, Any]]) -> Operation:
    accepted = yield Call("POST", "/v1/retain", {"turns": [dict(turn) for turn in turns]})
    return accepted["job_ids"]


def job(job_id: str) -> Operation:
    return (yield Call("GET", f"/v1/jobs/{segment(job_id)}"))


def wait(job_id: str, timeout_s: float, interval_s: float) -> Operation:
    """Poll the job until it leaves `queued`; `JobWaitTimeout` after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while True:
        state = yield from job(job_id)
        if state["state"] != "queued":
            return state
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise JobWaitTimeout(job_id, timeout_s)
        yield Pause(min(interval_s, remaining))


def _json(value: Any) -> Any:
    """Datetimes as ISO 8601 (`since`, `until`), the rest as given."""
    return value.isoformat() if isinstance(value, datetime) else value


def recall(user_id: str, query: str, options: Mapping[str, Any]) -> Operation:
    body = {name: _json(value) for name, value in options.items()}
    return (yield Call("POST", "/v1/recall", {**body, "user_id": user_id, "query": query}))


def reflect(user_id: str, question: str, options: Mapping[str, Any]) -> Operation:
    return (yield Call("POST", "/v1/reflect", {**options, "user_id": user_id, "question": question}))


def store(memory: Mapping[str, Any]) -> Operation:
    return (yield Call("POST", "/v1/memories", dict(memory)))


def memory(memory_id: str) -> Operation:
    return (yield Call("GET", f"/v1/memories/{segment(memory_id)}"))


def edit(memory_id: str, changes: Mapping[str, Any]) -> Operation:
    return (yield Call("PATCH", f"/v1/memories/{segment(memory_id)}", dict(changes)))


def attribute_history(user_id: str, attribute: str, entity: str | None) -> Operation:
    params = {"entity": entity} if entity is not None else None
    path = f"/v1/users/{segment(user_id)}/attributes/{segment(attribute)}/history"
    return (yield Call("GET", path, params=params))


def users(page_size: int) -> Operation:
    """Every user of the tenant with their counts, following `next_cursor` to the end."""
    found: list[Json] = []
    params: dict[str, Any] = {"limit": page_size}
    while True:
        page = yield Call("GET", "/v1/users", params=params)
        found.extend(page["users"])
        if page.get("next_cursor") is None:
            return found
        params = {**params, "cursor": page["next_cursor"]}


def consolidate(topic: str, options: Mapping[str, Any]) -> Operation:
    return (yield Call("POST", "/v1/consolidate", {**options, "topic": topic}))


def forget(memory_id: str) -> Operation:
    return (yield Call("POST", f"/v1/memories/{segment(memory_id)}/revoke"))


def forget_user(user_id: str) -> Operation:
    return (yield Call("DELETE", f"/v1/users/{segment(user_id)}"))


def memories(user_id: str, state: str, page_size: int) -> Operation:
    """Every page of the user's memories, following `next_cursor` to the end."""
    found: list[Json] = []
    params: dict[str, Any] = {"state": state, "limit": page_size}
    while True:
        page = yield Call("GET", f"/v1/users/{segment(user_id)}/memories", params=params)
        found.extend(page["memories"])
        if page.get("next_cursor") is None:
            return found
        params = {**params, "cursor": page["next_cursor"]}
