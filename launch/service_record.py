"""What a running `beliefstream dev` leaves in its data dir so client commands find it by themselves.

    <data_dir>/service.json   {"url", "api_key", "pid", "broker"}   written at start, removed at a clean stop
    <data_dir>/dev-api-key    the dev key, kept across runs
    <data_dir>/broker.url     the embedded broker's URL while it runs

This module imports nothing heavy: `recall`, `consolidate`, `decay` and `mcp` read it before
deciding whether to load anything else. A record whose process is gone (a crash, `kill -9`) is
stale and reads as no record.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

SERVICE_FILE = "service.json"
DEV_KEY_FILE = "dev-api-key"
BROKER_URL_FILE = "broker.url"

#: Bind addresses a client on this machine reaches on the loopback interface.
_ANY_ADDRESS = ("0.0.0.0", "::", "")


@dataclass(frozen=True)
class ServiceRecord:
    """Where the running sidecar answers and the key it accepts."""

    url: str
    api_key: str
    pid: int
    broker: str | None = None


def local_url(host: str, port: int) -> str:
    """The URL a client on this machine reaches a server bound to `host`:`port` at."""
    host = "127.0.0.1" if host in _ANY_ADDRESS else host
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    return True


def write_service_record(data_dir: Path, record: ServiceRecord) -> Path:
    """Record the service (owner-only permissions: it holds an API key)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / SERVICE_FILE
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(asdict(record)) + "\n")
    temporary.chmod(0o600)
    temporary.replace(path)
    return path


def remove_service_record(data_dir: Path) -> None:
    (data_dir / SERVICE_FILE).unlink(missing_ok=True)


def read_service_record(data_dir: Path) -> ServiceRecord | None:
    """The running service's record, or None when there is none, it is unreadable or its process is gone."""
    try:
        raw = json.loads((data_dir / SERVICE_FILE).read_text())
        record = ServiceRecord(
            url=str(raw["url"]), api_key=str(raw["api_key"]), pid=int(raw["pid"]), broker=raw.get("broker")
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return record if _alive(record.pid) else None


def recorded_dev_key(data_dir: Path) -> str | None:
    """The dev key `beliefstream dev` generated under `data_dir`, if it ever ran there."""
    path = data_dir / DEV_KEY_FILE
    return path.read_text().strip() if path.exists() else None


def recorded_broker_url(data_dir: Path) -> str | None:
    """The embedded broker a running `beliefstream dev` started, as it recorded under data_dir."""
    path = data_dir / BROKER_URL_FILE
    return path.read_text().strip() if path.exists() else None
