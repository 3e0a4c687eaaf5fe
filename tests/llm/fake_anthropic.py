"""A local HTTP server that speaks enough of the Anthropic Messages API to test the real SDK path.

It runs uvicorn on 127.0.0.1 (a free port) in a background thread, answers `POST /v1/messages`
from a script of replies (then a default), records every request body and its headers, and tracks
how many requests were in flight at once. It answers a forced tool with a `tool_use` block, and
counts tokens like the API's `usage` (JSON length / 4): a prefix marked with `cache_control` and
long enough is a cache write the first time, a cache read afterwards. The Message Batches endpoints
(create, retrieve, results) answer each request of a batch like the messages endpoint would, once
the batch has been retrieved `batch_polls` times. Like the real API at version 2026-10-21 (what SDK 2.x
sends), it answers 400 to `temperature`, `top_p` or `top_k`, and to a request whose shape the API
refuses (`tests.llm.fake_api_rules.shape_errors`). Nothing here reaches the real API.

    with FakeAnthropic.running() as fake:
        fake.script(Reply.ok('[]'), Reply.rate_limited(), Reply.error(500), Reply.hang(2.0))
        ... point the SDK at fake.url ...
        fake.requests  # the JSON bodies received, in order

`memory()` builds one valid memory object as the extraction prompt asks the model to write it.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from streams.settings import Settings
from tests.llm.fake_api_rules import cached_prefix, estimate_tokens, shape_errors

#: The API version SDK 2.x sends; it refuses sampling parameters, and so does this fake.
STRICT_API_VERSION = "2026-10-21"
SAMPLING_PARAMETERS = ("temperature", "top_p", "top_k")

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


@dataclass(frozen=True)
class Reply:
    """One scripted answer: a model text or a tool call (status 200), or an API error, after an
    optional delay."""

    status: int = 200
    text: str = "[]"
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    tool_input: Any = None  # set: the answer is a call of the request's forced tool with this input

    @classmethod
    def ok(cls, text: str, delay_s: float = 0.0) -> Reply:
        return cls(text=text, delay_s=delay_s)

    @classmethod
    def memories(cls, *items: dict[str, Any], delay_s: float = 0.0) -> Reply:
        """A well-formed extraction answer: a call of the forced tool holding these memory objects."""
        return cls.tool({"memories": list(items)}, delay_s=delay_s)

    @classmethod
    def tool(cls, tool_input: Any, delay_s: float = 0.0) -> Reply:
        """A call of the request's forced tool with this input (any JSON, valid or not)."""
        return cls(tool_input=tool_input, delay_s=delay_s)

    @classmethod
    def rate_limited(cls, retry_after_ms: int = 10) -> Reply:
        """429 with `retry-after` (whole seconds, standard) and `retry-after-ms` (what the SDK reads first)."""
        return cls(status=429, headers={"retry-after": "1", "retry-after-ms": str(retry_after_ms)})

    @classmethod
    def error(cls, status: int = 500, retry_after_ms: int | None = 10) -> Reply:
        headers = {"retry-after-ms": str(retry_after_ms)} if retry_after_ms is not None else {}
        return cls(status=status, headers=headers)

    @classmethod
    def hang(cls, seconds: float) -> Reply:
        """Answer `[]` only after `seconds`: past a short client timeout, this is a timeout."""
        return cls(delay_s=seconds)


def memory(**fields: Any) -> dict[str, Any]:
    """A valid memory object as the model would write it, with overrides."""
    item: dict[str, Any] = {
        "text": "The user uses pytest for tests.",
        "type": "preference",
        "topic": "tech",
        "importance": 0.7,
        "confidence": 0.9,
        "entity": "user",
        "attribute": "preferred_test_framework",
        "value": "pytest",
        "context": None,
        "recall_semantics": "default",
        "trigger": None,
        "is_correction": False,
        "evidence": "I use pytest",
        "valid_from": None,
        "expires_in_days": None,
    }
    item.update(fields)
    return item


def message_body(reply: Reply, request: dict[str, Any], number: int, usage: dict[str, int]) -> dict[str, Any]:
    """A Messages API response: one text block, or one call of the request's forced tool."""
    content: dict[str, Any] = {"type": "text", "text": reply.text}
    stop_reason = "end_turn"
    if reply.tool_input is not None:
        name = (request.get("tool_choice") or {}).get("name") or "no_tool_was_forced"
        content = {"type": "tool_use", "id": f"toolu_fake_{number:04d}", "name": name, "input": reply.tool_input}
        stop_reason = "tool_use"
    return {
        "id": f"msg_fake_{number:04d}",
        "type": "message",
        "role": "assistant",
        "model": request.get("model", ""),
        "content": [content],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage | {"output_tokens": estimate_tokens(content)},
    }


class FakeAnthropic:
    """The fake API server; thread-safe bookkeeping, so the test's event loop can read it at any time."""

    def __init__(self, default: Reply | None = None, min_cacheable_tokens: int = 4096) -> None:
        self._lock = threading.Lock()
        self.min_cacheable_tokens = min_cacheable_tokens  # Claude Haiku 4.5's floor
        #: answers an unscripted request from its body (a benchmark's stand-in model); None: `default`
        self.responder: Callable[[dict[str, Any]], Awaitable[Reply]] | None = None
        self._script: deque[Reply] = deque()
        self.in_flight = 0
        self.reset(default)
        self._ids = itertools.count(1)
        self._closing = threading.Event()
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None
        self.url = ""

    # scripting -----------------------------------------------------------------------------------

    def reset(self, default: Reply | None = None) -> None:
        """Forget the script and what was received, so one server can serve many tests."""
        with self._lock:
            self.default = default or Reply.ok("[]")
            self.requests: list[dict[str, Any]] = []
            self.headers: list[dict[str, str]] = []
            self.usages: list[dict[str, int]] = []  # the usage of each answered message, in order
            self._cached: set[str] = set()  # prefixes written to the cache
            self.responder = None
            self.batches: dict[str, dict[str, Any]] = {}  # Message Batches, by id
            self.batch_polls = 1  # retrieve calls before a batch has ended
            self.max_in_flight = self.in_flight  # a request left hanging by an earlier test still counts
            self._script.clear()

    def script(self, *replies: Reply) -> None:
        """Queue replies; each request takes the next one, then the default."""
        with self._lock:
            self._script.extend(replies)

    @property
    def request_count(self) -> int:
        with self._lock:
            return len(self.requests)

    # the app -------------------------------------------------------------------------------------

    async def _messages(self, request: Request) -> Response:
        body = await request.json()
        with self._lock:
            self.requests.append(body)
            self.headers.append(dict(request.headers))
            reply = self._script.popleft() if self._script else None
            number = next(self._ids)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        if reply is None:  # unscripted: the responder, if any, answers from the request
            reply = await self.responder(body) if self.responder is not None else self.default
        refused = [name for name in SAMPLING_PARAMETERS if name in body]
        if refused and request.headers.get("anthropic-version", "") >= STRICT_API_VERSION:
            reply = Reply(status=400, text=f"{refused[0]}: Extra inputs are not permitted")
        if problems := shape_errors(body):
            reply = Reply(status=400, text="; ".join(problems))
        try:
            deadline = time.monotonic() + reply.delay_s
            while time.monotonic() < deadline and not self._closing.is_set():
                if await request.is_disconnected():  # the client timed out and hung up
                    break
                await asyncio.sleep(min(0.01, max(0.0, deadline - time.monotonic())))
            if reply.status == 200:
                answer = message_body(reply, body, number, self._usage(body))
                with self._lock:
                    self.usages.append(answer["usage"])
                return JSONResponse(answer)
            message = reply.text if reply.status == 400 else f"fake {reply.status}"
            error = {"type": _ERROR_TYPES.get(reply.status, "api_error"), "message": message}
            return JSONResponse(
                {"type": "error", "error": error}, status_code=reply.status, headers=reply.headers
            )
        finally:
            with self._lock:
                self.in_flight -= 1

    def _usage(self, body: dict[str, Any]) -> dict[str, int]:
        """Input tokens split like the API's: a marked prefix of at least `min_cacheable_tokens` is
        written to the cache the first time and read from it afterwards."""
        whole = estimate_tokens([body.get("tools"), body.get("system"), body.get("messages")])
        prefix = cached_prefix(body)
        tokens = estimate_tokens(prefix) if prefix else 0
        usage = {"input_tokens": whole, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        if not prefix or tokens < self.min_cacheable_tokens:
            return usage
        key = json.dumps(prefix, sort_keys=True)
        with self._lock:
            hit = key in self._cached
            self._cached.add(key)
        usage["cache_read_input_tokens" if hit else "cache_creation_input_tokens"] = tokens
        usage["input_tokens"] = max(1, whole - tokens)
        return usage

    # the Message Batches endpoints --------------------------------------------------------------

    def _batch_object(self, batch: dict[str, Any]) -> dict[str, Any]:
        ended = batch["polls_left"] <= 0
        succeeded = sum(1 for r in batch.get("results", ()) if r["result"]["type"] == "succeeded")
        total = len(batch["requests"])
        return {
            "id": batch["id"], "type": "message_batch",
            "processing_status": "ended" if ended else "in_progress",
            "request_counts": {
                "processing": 0 if ended else total, "succeeded": succeeded if ended else 0,
                "errored": total - succeeded if ended else 0, "canceled": 0, "expired": 0,
            },
            "ended_at": "2026-11-27T00:00:00Z" if ended else None, "created_at": "2026-11-27T00:00:00Z",
            "expires_at": "2026-11-28T00:00:00Z", "cancel_initiated_at": None, "archived_at": None,
            "results_url": f"{self.url}/v1/messages/batches/{batch['id']}/results" if ended else None,
        }  # fmt: skip

    async def _create_batch(self, request: Request) -> Response:
        body = await request.json()
        with self._lock:
            self.headers.append(dict(request.headers))
            number = next(self._ids)
            batch = {"id": f"msgbatch_fake_{number:04d}", "requests": body["requests"], "polls_left": self.batch_polls}
            self.batches[batch["id"]] = batch
        return JSONResponse(self._batch_object(batch))

    async def _get_batch(self, request: Request) -> Response:
        with self._lock:
            batch = self.batches.get(request.path_params["batch_id"])
            if batch is None:
                return JSONResponse({"type": "error", "error": {"type": "not_found_error", "message": "no such batch"}}, 404)
            batch["polls_left"] -= 1
            ready = batch["polls_left"] <= 0 and "results" not in batch
        if ready:  # each request answered once, as the messages endpoint would
            results = []
            for item in batch["requests"]:
                params = item["params"]
                with self._lock:
                    self.requests.append(params)
                    reply = self._script.popleft() if self._script else None
                    number = next(self._ids)
                if reply is None:
                    reply = await self.responder(params) if self.responder is not None else self.default
                if shape_errors(params):
                    reply = Reply(status=400)
                if reply.status == 200:
                    message = message_body(reply, params, number, self._usage(params))
                    with self._lock:
                        self.usages.append(message["usage"])
                    result: dict[str, Any] = {"type": "succeeded", "message": message}
                else:
                    error = {"type": _ERROR_TYPES.get(reply.status, "api_error"), "message": f"fake {reply.status}"}
                    result = {"type": "errored", "error": {"type": "error", "error": error}}
                results.append({"custom_id": item["custom_id"], "result": result})
            batch["results"] = results
        return JSONResponse(self._batch_object(batch))

    async def _batch_results(self, request: Request) -> Response:
        batch = self.batches[request.path_params["batch_id"]]
        lines = "\n".join(json.dumps(line) for line in batch.get("results", ()))
        return Response(lines + "\n", media_type="application/binary")

    def _app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/v1/messages", self._messages, methods=["POST"]),
                Route("/v1/messages/batches", self._create_batch, methods=["POST"]),
                Route("/v1/messages/batches/{batch_id}", self._get_batch, methods=["GET"]),
                Route("/v1/messages/batches/{batch_id}/results", self._batch_results, methods=["GET"]),
            ]
        )

    # life cycle ----------------------------------------------------------------------------------

    def start(self) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        self._socket = sock
        config = uvicorn.Config(
            self._app(),
            log_level="warning",
            lifespan="off",
            ws="none",
            http="h11",
            timeout_graceful_shutdown=1,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name="fake-anthropic", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 5.0
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the fake Anthropic server did not start")
            time.sleep(0.005)
        self.url = f"http://127.0.0.1:{port}"

    def close(self) -> None:
        self._closing.set()
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=5.0)
        if self._socket is not None:
            self._socket.close()

    @classmethod
    @contextmanager
    def running(cls, default: Reply | None = None) -> Iterator[FakeAnthropic]:
        fake = cls(default)
        fake.start()
        try:
            yield fake
        finally:
            fake.close()


def free_port() -> int:
    """A port nothing listens on (for connection-refused tests)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def claude_settings(url: str, **overrides: Any) -> Settings:
    """Settings that send Claude calls to the fake at `url`: a test key, short timeouts, no retries."""
    values: dict[str, Any] = {
        "anthropic_api_key": "test-key",
        "anthropic_base_url": url,
        "anthropic_timeout_s": 0.5,
        "anthropic_max_retries": 0,
    }
    return Settings(**(values | overrides))
