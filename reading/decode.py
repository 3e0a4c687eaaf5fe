"""Decoding raw Kafka values into turns, or into a rejection that names what is wrong.

Bad input never stops the stream: a value that is not UTF-8, not JSON, misses a field, names an
unknown role, carries too much text, a lone surrogate or NUL, or metadata past its bounds
(`beliefs.bounds`) becomes a `Rejection` bound for the DLQ. So does a turn whose record key names
another tenant or user than its value (`key_mismatch`): the key decides the partition, so the worker
that owns the user, and a producer keyed to one tenant must not write into another's; a record
without a key is read by its value. `decode_turn` never raises: a value no rule foresaw is still
one rejected record. A decoded turn's `accepted_at` is the earliest of its
stamp and the record's timestamp (`beliefs.erasure`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from beliefs.bounds import MAX_ID_LENGTH, metadata_violation, text_violation, unencodable_violation
from beliefs.erasure import acceptance
from beliefs.records import Role, Turn, utcnow


@dataclass(frozen=True)
class RawTurn:
    """A value as it came off the turns topic, with where it came from."""

    value: bytes | None
    key: bytes | None = None
    topic: str | None = None
    partition: int | None = None
    offset: int | None = None
    headers: Any = None  # as the consumer gives them: (name, bytes) pairs or a mapping
    timestamp: float | None = None  # the broker record's timestamp, seconds since the epoch

    @property
    def recorded_at(self) -> datetime | None:
        """The record's timestamp as a UTC moment; None when the broker gave none (or a negative one)."""
        if self.timestamp is None or self.timestamp <= 0:
            return None
        return datetime.fromtimestamp(self.timestamp, UTC)


@dataclass(frozen=True)
class Rejection:
    """Why a raw value is not a turn; the ids are kept when they could be read, for the job row."""

    raw: RawTurn
    reason: str  # stable snake_case: invalid_utf8, invalid_json, not_an_object, missing_field, ...
    detail: str
    tenant_id: str | None = None
    user_id: str | None = None
    turn_id: str | None = None


_ROLES = ", ".join(role.value for role in Role)


def _ids(document: dict) -> dict[str, str | None]:
    def text_or_none(name: str) -> str | None:
        value = document.get(name)
        readable = isinstance(value, str) and 0 < len(value) <= MAX_ID_LENGTH
        return value if readable and text_violation(value, name) is None else None

    return {name: text_or_none(name) for name in ("tenant_id", "user_id", "turn_id")}


def _validation_reason(error: ValidationError) -> tuple[str, str]:
    first = error.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or "value"
    if first["type"] == "missing":
        missing = [".".join(str(p) for p in e["loc"]) for e in error.errors() if e["type"] == "missing"]
        return "missing_field", f"required field(s) missing: {', '.join(missing)}"
    if field == "role":
        return "unknown_role", f"role must be one of {_ROLES}"
    return "invalid_field", f"{field}: {first['msg']}"


def _no_constants(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def _parse(text: str) -> object:
    return json.loads(text, parse_constant=_no_constants)


def decode_turn(raw: RawTurn, max_text_bytes: int) -> Turn | Rejection:
    """The turn in `raw`, or the reason it cannot be one."""
    try:
        return _decode(raw, max_text_bytes)
    except Exception as exc:  # noqa: BLE001 - one value no rule foresaw is still one bad record
        return Rejection(raw, "undecodable", f"the value could not be read: {type(exc).__name__}: {exc}"[:500])


def _decode(raw: RawTurn, max_text_bytes: int) -> Turn | Rejection:
    if raw.value is None:
        return Rejection(raw, "empty_value", "the message has no value (a tombstone?)")
    try:
        text = raw.value.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Rejection(raw, "invalid_utf8", f"value is not valid UTF-8: {exc.reason} at byte {exc.start}")
    try:
        document = _parse(text)
    except json.JSONDecodeError as exc:
        return Rejection(raw, "invalid_json", f"value is not JSON: {exc.msg} at line {exc.lineno} col {exc.colno}")
    except RecursionError:
        return Rejection(raw, "too_deep", "value is nested too deeply to be a turn")
    except ValueError as exc:  # NaN/Infinity, or an integer with more digits than Python reads
        return Rejection(raw, "invalid_json", f"value is not strict JSON: {exc}"[:300])
    if not isinstance(document, dict):
        return Rejection(raw, "not_an_object", f"a turn is a JSON object, got {type(document).__name__}")
    ids = _ids(document)
    if violation := unencodable_violation(document, "value"):
        return Rejection(raw, violation.reason, violation.detail.removeprefix("value."), **ids)
    body = document.get("text")
    if isinstance(body, str) and len(body.encode("utf-8")) > max_text_bytes:
        size = len(body.encode("utf-8"))
        return Rejection(raw, "text_too_large", f"text is {size} bytes, the limit is {max_text_bytes}", **ids)
    if violation := metadata_violation(document.get("metadata")):
        return Rejection(raw, violation.reason, violation.detail, **ids)
    if document.get("ts") is None:
        document = {**document, "ts": utcnow().isoformat()}  # `ts` defaults to the time of arrival
    try:
        turn = Turn.model_validate(document)
    except ValidationError as exc:
        reason, detail = _validation_reason(exc)
        return Rejection(raw, reason, detail, **ids)
    if raw.key is not None and raw.key != turn.key.encode("utf-8"):
        detail = "the record's key is not its value's tenant_id:user_id; a turn is kept only where both agree"
        return Rejection(raw, "key_mismatch", detail, **ids)
    accepted_at = acceptance(turn.accepted_at, raw.recorded_at)  # erasure compares it (beliefs.erasure)
    return turn if accepted_at == turn.accepted_at else turn.model_copy(update={"accepted_at": accepted_at})
