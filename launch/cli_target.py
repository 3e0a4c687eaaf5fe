"""Which sidecar and API key a client command (`recall`, `consolidate`, `mcp`) talks to, and its
failures as one line that says what to do.

The URL is `--url`, else the one a running `beliefstream dev` recorded under the data dir
(`launch.service_record`), else `BELIEFSTREAM_HOST`/`_PORT`. The key is `--key`, else the
recorded one (when the URL is the recorded service's), else the first of `BELIEFSTREAM_API_KEYS`,
else the dev key. Nothing heavy is imported here: a client call must start in well under a second.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from beliefs.errors import BeliefstreamError
from launch.service_record import ServiceRecord, local_url, read_service_record, recorded_dev_key
from streams.settings import Settings

if TYPE_CHECKING:
    from beliefstream_client import MemoryClientError


@dataclass(frozen=True)
class Target:
    """A sidecar to call: its URL, the key to call it with, and whether a running `dev` recorded it."""

    url: str
    api_key: str
    recorded: bool
    given: bool = False  # the URL came from --url


def configured_url(settings: Settings) -> str:
    """The sidecar URL from BELIEFSTREAM_HOST/_PORT, as a client on this machine reaches it."""
    return local_url(settings.host, settings.port)


def _key(settings: Settings, given: str | None, record: ServiceRecord | None) -> str:
    if given:
        return given
    if record is not None:
        return record.api_key
    keys = settings.parsed_api_keys()
    if keys:
        return next(iter(keys))
    dev_key = recorded_dev_key(settings.data_dir)
    if dev_key:
        return dev_key
    raise BeliefstreamError(
        f"no API key: pass --key, set BELIEFSTREAM_API_KEYS, or start `beliefstream dev` first "
        f"(no service is recorded under {settings.data_dir})"
    )


def find_target(settings: Settings, url: str | None, key: str | None) -> Target:
    """The sidecar this command calls; `BeliefstreamError` when no key can be found."""
    record = read_service_record(settings.data_dir)
    if url is not None and record is not None and url.rstrip("/") != record.url:
        record = None  # another service: its key is not ours to send
    chosen = url or (record.url if record is not None else configured_url(settings))
    return Target(chosen.rstrip("/"), _key(settings, key, record), record is not None, url is not None)


def client_failure(what: str, target: Target, exc: MemoryClientError) -> BeliefstreamError:
    """One line for a failed call: for an unreachable sidecar, how to get one."""
    if exc.status == 0 and exc.code == "unreachable":
        if target.given:
            hint = "check --url, or start that sidecar (`beliefstream dev --port ...`)"
        elif target.recorded:
            hint = "is `beliefstream dev` still running? Restart it, or pass --url"
        else:
            hint = "start `beliefstream dev` (with the same --data-dir), or pass --url of a running sidecar"
        return BeliefstreamError(f"{what}: no sidecar answers at {target.url}; {hint}")
    if exc.status == 0:
        return BeliefstreamError(f"{what}: {exc.message} (sidecar {target.url})")
    return BeliefstreamError(f"{what} ({exc.status} {exc.code}): {exc.message}")
