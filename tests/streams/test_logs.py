"""Structured logs: JSON lines with the turn's tenant, user digest and turn id; with log text off no
exception message, exception argument, marked text or other library's debug line gets through."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Callable, Iterator
from types import SimpleNamespace

import pytest

from streams.logs import WITHHELD, bound_turn, configure_logging, text, user_digest

PRIVATE = "the pear tree behind the bakery, key sk-ant-api03-AbCdEfGhIjKlMnOp"
TURN = SimpleNamespace(tenant_id="acme", user_id="ana@example.org", turn_id="t-7")

Logs = Callable[..., io.StringIO]


@pytest.fixture
def logs() -> Iterator[Logs]:
    """`logs(fmt, log_text=...)` routes the root logger into a buffer; restored afterwards."""
    root = logging.getLogger()
    level = root.level
    handlers: list[logging.Handler] = []

    def configure(fmt: str = "json", **options) -> io.StringIO:
        buffer = io.StringIO()
        handlers.append(configure_logging(fmt, level=logging.DEBUG, stream=buffer, **options))  # type: ignore[arg-type]
        return buffer

    yield configure
    for handler in handlers:
        root.removeHandler(handler)
    root.removeHandler(configure_logging("json", level=level, stream=io.StringIO()))  # text off, no key


def _fail() -> None:
    try:
        raise ValueError(f"cannot parse {PRIVATE}")
    except ValueError as exc:
        raise RuntimeError(f"extraction failed: {exc}") from exc


def _lines(buffer: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in buffer.getvalue().splitlines()]


def test_a_line_about_a_turn_is_json_with_tenant_user_digest_and_turn_id(logs: Logs) -> None:
    buffer = logs()
    with bound_turn(TURN):
        logging.getLogger("agents.pipeline").warning("turn %s failed", TURN.turn_id)
    logging.getLogger("agents.pipeline").warning("batch done")
    about, after = _lines(buffer)
    assert about["event"] == "turn t-7 failed" and about["level"] == "warning" and about["logger"] == "agents.pipeline"
    assert (about["tenant"], about["turn_id"]) == ("acme", "t-7")
    assert about["user_digest"] == user_digest("acme", "ana@example.org") != "ana@example.org"
    assert "tenant" not in after and "ana@example.org" not in buffer.getvalue()


def test_exception_messages_and_arguments_are_withheld_but_the_frames_are_kept(logs: Logs) -> None:
    buffer = logs()
    log = logging.getLogger("agents.pipeline")
    try:
        _fail()
    except RuntimeError as exc:
        log.exception("failed: %s", exc)
    log.debug("dropped items: %s", text(PRIVATE))
    failed, dropped = _lines(buffer)
    assert "pear tree" not in buffer.getvalue() and "sk-ant" not in buffer.getvalue()
    assert failed["event"] == f"failed: RuntimeError ({WITHHELD})"
    assert "builtins.ValueError: " + WITHHELD in failed["exception"] and "in _fail" in failed["exception"]
    assert "builtins.RuntimeError: " + WITHHELD in failed["exception"]
    assert dropped["event"] == f"dropped items: {WITHHELD}"


def test_other_libraries_debug_lines_are_dropped_while_text_is_off(logs: Logs) -> None:
    buffer = logs()
    logging.getLogger("aiosqlite").debug("executing INSERT (%r)", PRIVATE)
    logging.getLogger("sqlalchemy.engine.Engine").info("[generated] (%r)", PRIVATE)
    logging.getLogger("thirdparty.client").warning("connection lost")  # a library nothing configured
    assert [line["logger"] for line in _lines(buffer)] == ["thirdparty.client"]


def test_log_text_on_shows_what_debugging_asks_for(logs: Logs) -> None:
    buffer = logs(log_text=True)
    try:
        _fail()
    except RuntimeError:
        logging.getLogger("agents.pipeline").exception("failed")
    logging.getLogger("reading.extract").debug("dropped: %s", text("an echo"))
    logging.getLogger("aiosqlite").debug("executing")
    assert PRIVATE in buffer.getvalue() and "dropped: an echo" in buffer.getvalue()
    assert len(_lines(buffer)) == 3


def test_the_user_digest_is_stable_per_tenant_and_keyed_when_a_key_is_set(logs: Logs) -> None:
    logs()
    plain = user_digest("acme", "ana")
    assert plain == user_digest("acme", "ana") != user_digest("other", "ana")
    assert len(plain) == 16
    logs(digest_key="a long random string")
    assert user_digest("acme", "ana") not in {plain, ""}


def test_console_format_renders_the_same_fields_for_a_terminal(logs: Logs) -> None:
    buffer = logs("console")
    with bound_turn(TURN):
        logging.getLogger("agents.pipeline").warning("turn failed")
    line = buffer.getvalue()
    assert "turn failed" in line and "turn_id=t-7" in line and "tenant=acme" in line
    assert not line.startswith("{")


def test_other_handlers_see_the_record_as_it_was_logged(logs: Logs, caplog: pytest.LogCaptureFixture) -> None:
    buffer = logs()
    with caplog.at_level(logging.WARNING, logger="agents.pipeline"):
        logging.getLogger("agents.pipeline").warning("failed: %s", ValueError("disk full"))
    assert "disk full" not in buffer.getvalue()
    assert caplog.records[-1].getMessage() == "failed: disk full"
