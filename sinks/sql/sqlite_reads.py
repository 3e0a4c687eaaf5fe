"""Recall's statements run on a SQLite file through the DBAPI cursor, without SQLAlchemy's execution.

A statement is compiled once (`CompiledRead`): its SQL, the order of its parameters and what binds
each, and what turns each result column into its Python value (the column types' own processors,
with exact fast paths for the two every row has several of: UTC datetimes and JSON lists). A read
is then the cursor's execute and fetchall, and one pass over the rows; SQLAlchemy's execution
context, parameter processing and `Row` objects cost more than SQLite's own work on these reads
(`docs/benchmarks.md`, "Recall latency and throughput"; its history in git).

Expanding `IN` lists are padded to a few lengths by repeating their last value (which changes no
IN predicate's answer), so that a statement has few SQL texts and the connection's prepared
statement cache keeps them: preparing a recall statement costs more than running it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import JSON
from sqlalchemy.engine import Dialect

from sinks.sql.column_types import UtcDateTime

#: Lengths an expanding IN list is padded to (a longer list goes to the next multiple of the last).
PADDED_LENGTHS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128)

_POSTCOMPILE = re.compile(r"__\[POSTCOMPILE_(\w+)\]")
_REQUIRED = object()
_scan_json = json.JSONDecoder().scan_once  # json.loads without its wrapper's cost, same parser
_from_iso = datetime.fromisoformat

Processor = Callable[[Any], Any]


def padded_length(n: int) -> int:
    """The length a list of `n` values is sent as (n ≥ 1)."""
    for length in PADDED_LENGTHS:
        if n <= length:
            return length
    step = PADDED_LENGTHS[-1]
    return -(-n // step) * step


class CompiledRead:
    """One statement compiled for SQLite, to run again and again on a DBAPI cursor (recall's reads,
    and the audit's insert: `sqlite_writes`)."""

    def __init__(self, statement: Any, dialect: Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        self.statement = statement
        self._template = compiled.string
        self._order = [(name, compiled.binds[name].expanding) for name in compiled.positiontup or ()]
        self._binds: list[tuple[str, Processor | None, Any, bool]] = []  # each name once
        for name, expanding in dict.fromkeys(self._order):
            bind = compiled.binds[name]
            default = _REQUIRED if bind.required else bind.effective_value
            self._binds.append((name, _bind_processor(bind.type, dialect), default, expanding))
        self._sql: dict[tuple[int, ...], str] = {}
        slot = {name: i for i, (name, *_) in enumerate(self._binds)}
        self._positions = [slot[name] for name, _ in self._order]  # the argument list from the values of `_binds`
        self._plain = not any(expanding for _, expanding in self._order)  # one SQL text, no list to splice
        self._columns = [
            (index, processor)
            for index, column in enumerate(getattr(statement, "selected_columns", ()))  # an INSERT selects none
            if (processor := _result_processor(column.type, dialect)) is not None
        ]

    def bind(self, params: Mapping[str, Any]) -> tuple[str, list[Any]]:
        """The SQL text and positional arguments of one execution with `params`."""
        values: list[Any] = []
        lengths: dict[str, int] = {}
        for name, process, default, expanding in self._binds:
            value = params.get(name, default)
            if value is _REQUIRED:
                raise KeyError(f"a value is required for bind parameter {name!r}")
            if expanding:
                value = list(value)
                if not value:
                    raise ValueError(f"the IN list {name!r} is empty: the statement would match nothing")
                lengths[name] = padded_length(len(value))
                value += [value[-1]] * (lengths[name] - len(value))
                if process is not None:
                    value = [process(v) for v in value]
            elif process is not None:
                value = process(value)
            values.append(value)
        if self._plain:
            return self._text(lengths), [values[i] for i in self._positions]
        args: list[Any] = []
        for i, (_, expanding) in zip(self._positions, self._order, strict=True):
            if expanding:
                args += values[i]
            else:
                args.append(values[i])
        return self._text(lengths), args

    def rows(self, fetched: list[tuple[Any, ...]]) -> list[Any]:
        """The fetched rows with each column's value as the column type gives it (tuples or lists)."""
        if not self._columns:
            return fetched
        converted = []
        for row in fetched:
            values = list(row)
            for index, process in self._columns:
                value = values[index]
                if value is not None:
                    values[index] = process(value)
            converted.append(values)
        return converted

    def _text(self, lengths: dict[str, int]) -> str:
        key = tuple(sorted(lengths.items()))
        text = self._sql.get(key)
        if text is None:
            text = _POSTCOMPILE.sub(lambda m: ", ".join("?" * lengths[m.group(1)]), self._template)
            self._sql[key] = text
        return text


def _bind_processor(type_: Any, dialect: Dialect) -> Processor | None:
    """What SQLAlchemy applies to a parameter's value (None: nothing); a UTC datetime bound again
    (a recall's reads share its `now`) is not formatted again."""
    generic = type_.dialect_impl(dialect).bind_processor(dialect)
    if generic is None or not isinstance(type_, UtcDateTime):
        return generic
    return _utc_bound(generic)


#: The last datetime a UTC bind formatted, and its text: one pair, replaced whole (threads may share it).
_last_utc: list[tuple[datetime | None, Any]] = [(None, None)]


def _utc_bound(generic: Processor) -> Processor:
    def process(value: Any) -> Any:
        if type(value) is not datetime:
            return generic(value)
        seen, text = _last_utc[0]
        if seen is not None and seen == value and seen.tzinfo is value.tzinfo:
            return text
        processed = generic(value)
        _last_utc[0] = (value, processed)
        return processed

    return process


def _result_processor(type_: Any, dialect: Dialect) -> Processor | None:
    """What SQLAlchemy applies to a column's raw values (None: nothing), with the fast paths."""
    generic = type_.dialect_impl(dialect).result_processor(dialect, None)
    if generic is None:
        return None
    if isinstance(type_, UtcDateTime):
        return _utc_datetime(generic)
    if isinstance(type_, JSON):
        return _json_value(generic)
    return generic


def _utc_datetime(generic: Processor) -> Processor:
    """SQLite's naive UTC text as an aware UTC datetime in one parse; anything else as SQLAlchemy does."""

    def process(value: Any) -> Any:
        if type(value) is str:
            try:
                parsed = _from_iso(value + "+00:00")
            except ValueError:  # not the naive text SQLAlchemy stores
                return generic(value)
            if parsed.tzinfo is not None:  # a date alone takes no offset
                return parsed
        return generic(value)

    return process


def _json_value(generic: Processor) -> Processor:
    """A JSON text parsed as json.loads would (an empty list without parsing); anything else as SQLAlchemy does."""

    def process(value: Any) -> Any:
        if value == "[]":
            return []
        if type(value) is str:
            try:
                parsed, end = _scan_json(value, 0)
            except StopIteration:
                return generic(value)
            if end == len(value):
                return parsed
        return generic(value)

    return process

