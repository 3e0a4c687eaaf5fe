"""Structured logs: every stdlib log record rendered by structlog, as JSON lines or for a console.

A line about a turn carries `tenant`, `user_digest` (a stable keyed hash, never the user id) and
`turn_id`, bound with `bound_turn(turn)` around the work on it. With `BELIEFSTREAM_LOG_TEXT=off`
(the default) no line carries the text of a turn or a secret: exception messages (a database
error quotes its parameters, a parser quotes its input) and exceptions passed as arguments are
reduced to their type, values wrapped in `text(...)` are withheld, and other libraries' debug and
info lines (which may quote statement parameters or prompts) are dropped. Tracebacks keep their
frames (file, line, code), which hold no data. `on` is for debugging on data one may read.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import sys
import traceback
from collections.abc import Iterator
from typing import Any, Literal

import structlog

#: What replaces a withheld message or value.
WITHHELD = "[withheld: BELIEFSTREAM_LOG_TEXT=off]"
_state = {"text": False, "key": b""}


class text:  # noqa: N801 - reads as a marker at the call site: log.debug("...%s", text(value))
    """A log argument that is (or derives from) the text of a turn: shown only with log text on."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value

    def __str__(self) -> str:
        return str(self.value) if _state["text"] else WITHHELD

    __repr__ = __str__


def user_digest(tenant_id: str, user_id: str) -> str:
    """A stable 16-hex digest of (tenant, user): lines of one user correlate, the id is not shown.
    Keyed by `BELIEFSTREAM_LOG_DIGEST_KEY` when set, so a guessable id cannot be confirmed."""
    digest = hashlib.blake2b(f"{tenant_id}\x00{user_id}".encode(), digest_size=8, key=_state["key"])
    return digest.hexdigest()


def turn_fields(turn: Any) -> dict[str, str]:
    """The log fields of a turn (anything with tenant_id, user_id and turn_id)."""
    return {"tenant": turn.tenant_id, "user_digest": user_digest(turn.tenant_id, turn.user_id), "turn_id": turn.turn_id}


@contextlib.contextmanager
def bound_turn(turn: Any) -> Iterator[None]:
    """Every line logged inside carries the turn's fields."""
    with structlog.contextvars.bound_contextvars(**turn_fields(turn)):
        yield


def _exception_chain(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    while exc is not None and exc not in chain:
        chain.append(exc)
        exc = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    return chain[::-1]


def redacted_traceback(exc: BaseException) -> str:
    """The traceback with every frame and exception type, and no exception message."""
    parts = []
    for link in _exception_chain(exc):
        frames = "".join(traceback.format_tb(link.__traceback__))
        parts.append(f"Traceback (most recent call last):\n{frames}{type(link).__module__}.{type(link).__qualname__}: {WITHHELD}")
    return "\n\nThe above exception was the direct cause of the following exception:\n\n".join(parts)


def _without_message(_logger: Any, _name: str, event: dict[str, Any]) -> dict[str, Any]:
    """Drop the `message` another handler's formatter left on the record: `event` already says it."""
    event.pop("message", None)
    return event


def _exception(_logger: Any, _name: str, event: dict[str, Any]) -> dict[str, Any]:
    """`exc_info` rendered as an `exception` field, its messages withheld unless log text is on."""
    info = event.pop("exc_info", None)
    if info is True:
        info = sys.exc_info()
    elif isinstance(info, BaseException):
        info = (type(info), info, info.__traceback__)
    if info and info[1] is not None:
        event["exception"] = "".join(traceback.format_exception(*info)) if _state["text"] else redacted_traceback(info[1])
    return event


#: Our packages: their debug lines mark text explicitly. Other libraries' debug and info lines may
#: quote data (aiosqlite and SQLAlchemy log statement parameters, the Anthropic SDK its prompts).
OWN_PACKAGES = ("beliefs", "streams", "sinks", "agents", "sidecar", "launch", "__main__")


class _OtherLibrariesQuiet(logging.Filter):
    """While log text is off, other libraries' lines below WARNING are not written."""

    def filter(self, record: logging.LogRecord) -> bool:
        return _state["text"] or record.levelno >= logging.WARNING or record.name.split(".", 1)[0] in OWN_PACKAGES


class _Formatter(structlog.stdlib.ProcessorFormatter):
    """structlog's formatter; while log text is off, exceptions passed as `%s` arguments are
    rendered as their type name (on a copy: other handlers see the record as it was)."""

    def format(self, record: logging.LogRecord) -> str:
        if not _state["text"] and record.args:
            record = logging.makeLogRecord(record.__dict__)
            if isinstance(record.args, tuple):
                record.args = tuple(_withheld(a) for a in record.args)
            elif isinstance(record.args, dict):
                record.args = {k: _withheld(v) for k, v in record.args.items()}
        return super().format(record)


def _withheld(value: object) -> object:
    return f"{type(value).__name__} ({WITHHELD})" if isinstance(value, BaseException) else value


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever `sys.stderr` is when a line is written (test runners and daemons swap it)."""

    @property  # type: ignore[override]
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, _value: Any) -> None:
        pass


def configure_logging(
    fmt: Literal["json", "console"] = "json",
    *,
    level: int = logging.WARNING,
    log_text: bool = False,
    digest_key: str | None = None,
    stream: Any = None,
) -> logging.Handler:
    """Route the root logger through structlog (replacing its handlers); answers the new handler."""
    _state["text"] = log_text
    _state["key"] = (digest_key or "").encode()[:64]
    shared = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.stdlib.ExtraAdder(),
        _without_message,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer = structlog.processors.JSONRenderer() if fmt == "json" else structlog.dev.ConsoleRenderer(colors=False)
    formatter = _Formatter(
        foreign_pre_chain=shared,
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, _exception, renderer],
    )
    handler = logging.StreamHandler(stream) if stream is not None else _StderrHandler()
    handler.setFormatter(formatter)
    handler.addFilter(_OtherLibrariesQuiet())
    root = logging.getLogger()
    for old in list(root.handlers):
        if getattr(old, "_beliefstream", False) or type(old) is logging.StreamHandler:
            root.removeHandler(old)
    handler._beliefstream = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level)
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        cache_logger_on_first_use=True,
    )
    return handler
