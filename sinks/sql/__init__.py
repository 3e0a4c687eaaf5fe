"""The SQL store: the authority on the belief state, on SQLite (dev) or PostgreSQL (production)."""

from sinks.sql.errors import InvalidCursorError, InvalidOutcomeError, InvalidRequestError
from sinks.sql.store import SqlMemoryStore

__all__ = ["InvalidCursorError", "InvalidOutcomeError", "InvalidRequestError", "SqlMemoryStore"]
