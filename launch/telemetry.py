"""Logs and traces of a running command, set up once from Settings (`BELIEFSTREAM_LOG_*`, `..._TRACING`).

The CLI calls `configure_telemetry` when it builds the settings of a command; `-v` lowers the level
to DEBUG but shows turn text only when `BELIEFSTREAM_LOG_TEXT=on` says so too.
"""

from __future__ import annotations

import logging

from streams.logs import configure_logging
from streams.settings import Settings
from streams.tracing import configure_tracing

#: Libraries whose INFO lines are noise for an operator; their warnings and errors still show.
NOISY = ("faust", "mode", "aiokafka", "httpx", "opentelemetry")


def configure_telemetry(settings: Settings, *, verbose: bool = False) -> None:
    """Route every log record through structlog; install the tracer when tracing is on."""
    key = settings.log_digest_key.get_secret_value() if settings.log_digest_key is not None else None
    configure_logging(
        settings.log_format,
        level=logging.DEBUG if verbose else logging.WARNING,
        log_text=settings.log_text == "on",
        digest_key=key,
    )
    if not verbose:
        for noisy in NOISY:
            logging.getLogger(noisy).setLevel(logging.ERROR)
    if settings.tracing == "on":
        configure_tracing()
