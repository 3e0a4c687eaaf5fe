"""The column types the SQL schema is written in, portable between SQLite and PostgreSQL.

Ids, names and enum values have one bounded width each; `UtcDateTime` keeps every moment in UTC
and hands it back aware on both backends.
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.types import TypeDecorator

from beliefs.records import as_utc

ID = sa.String(256)
NAME = sa.String(256)
ENUM = sa.String(32)


class UtcDateTime(TypeDecorator):
    """Stores UTC, always returns aware UTC (SQLite hands back naive datetimes)."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect) -> datetime | None:
        return None if value is None else as_utc(value)

    def process_result_value(self, value: datetime | None, dialect) -> datetime | None:
        return None if value is None else as_utc(value)
