"""Errors of the SQL store, under `sinks.errors.SinkError`.

    SinkError
    └── InvalidRequestError     a call the store cannot honour as asked (a caller's bug)
        ├── InvalidOutcomeError a batch that contradicts itself (embeddings, scope)
        ├── InvalidCursorError  a list cursor this store did not hand out
        ├── ContestedResolvedError  a contested slot that is already decided
        └── MemoryNotCurrentError   an edit of a memory that is no longer the current belief
"""

from sinks.errors import SinkError


class InvalidRequestError(SinkError, ValueError):
    """The request itself is wrong; retrying the same request cannot succeed."""


class InvalidOutcomeError(InvalidRequestError):
    """A turn outcome whose memories do not fit it (other tenant or user, embeddings miscounted)."""


class InvalidCursorError(InvalidRequestError):
    """A pagination cursor that is malformed or not from this listing."""


class ContestedResolvedError(InvalidRequestError):
    """A resolution of a contested slot that was already resolved (decisions are not overwritten)."""


class MemoryNotCurrentError(InvalidRequestError):
    """An edit of a superseded, revoked or expired memory: edit its current version instead."""
