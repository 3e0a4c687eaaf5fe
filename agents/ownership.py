"""Which users a worker maintains: pure decisions over partition assignments and closed windows.

A user's turns are keyed `tenant:user`, so they all land in one partition of the turns topic
(`streams.partitioner`), and the consumer group gives each partition to exactly one worker at a
time. Maintenance follows the same map: a worker decays and consolidates exactly the users whose
key falls in a partition it is assigned, so no two workers maintain one user, and a partition's
users move with the partition on a rebalance. No broker and no database here: the faust glue
(`agents.windowed_jobs`) feeds these functions what the table and the consumer hold.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from streams.partitioner import partition_for, turn_key

#: A windowed key: (`tenant:user`, (window start, window end)), in seconds.
WindowedKey = tuple[str, tuple[float, float]]


@dataclass(frozen=True, order=True)
class UserWindow:
    """One user's activity in one closed window: what a worker maintains when the window closes."""

    start: float
    end: float
    key: str  # `tenant:user`, as the turns are keyed

    @property
    def user(self) -> tuple[str, str] | None:
        """(tenant, user) of the key; None for a key without a `:` (never a turn's)."""
        return split_key(self.key)


def split_key(key: str) -> tuple[str, str] | None:
    """`tenant:user` as (tenant, user), split at the first `:` (a tenant id holds none: the API
    keys' `tenant[:agent]` form forbids it); None when there is no `:`."""
    tenant, sep, user = key.partition(":")
    if not sep or not tenant or not user:
        return None
    return tenant, user


def key_digest(key: str) -> str:
    """What a log line names a user by: 16 hex digits of sha256 of the `tenant:user` key, never the id."""
    return hashlib.sha256(key.encode("utf-8", errors="replace")).hexdigest()[:16]


def owns(key: str, assigned: Collection[int], partitions: int) -> bool:
    """True when the worker assigned `assigned` (partitions of the turns topic) owns `key`."""
    return partition_for(key.encode("utf-8", errors="replace"), partitions) in assigned


def owned_users(
    users: Iterable[tuple[str, str]], assigned: Collection[int], partitions: int
) -> list[tuple[str, str]]:
    """The (tenant, user) pairs among `users` whose turns go to one of the `assigned` partitions."""
    return [
        (tenant, user)
        for tenant, user in users
        if partition_for(turn_key(tenant, user), partitions) in assigned
    ]


def closed_windows(
    keys: Iterable[WindowedKey], now: float, grace_s: float, assigned: Collection[int], partitions: int
) -> list[UserWindow]:
    """The (user, window) entries this worker must maintain now: windows that ended at least
    `grace_s` before `now`, of keys in an assigned partition; oldest window first."""
    found = {
        UserWindow(float(start), float(end), key)
        for key, (start, end) in keys
        if end + grace_s <= now and owns(key, assigned, partitions)
    }
    return sorted(found)


def window_of(moment: float, size_s: float) -> tuple[float, float]:
    """The tumbling window of `size_s` seconds (aligned on the epoch) that holds `moment`."""
    start = math.floor(moment / size_s) * size_s
    return float(start), float(start + size_s)


def grouped_by_window(entries: Iterable[UserWindow]) -> list[list[UserWindow]]:
    """Entries in runs of one window each, oldest window first."""
    runs: dict[tuple[float, float], list[UserWindow]] = {}
    for entry in sorted(entries):
        runs.setdefault((entry.start, entry.end), []).append(entry)
    return list(runs.values())


class Assignment:
    """The partitions of the turns topic this worker holds now, and a generation that moves on every
    change: a maintenance pass started under one generation stops when a rebalance begins."""

    def __init__(self) -> None:
        self.partitions: frozenset[int] = frozenset()
        self.generation = 0

    def assign(self, partitions: Iterable[int]) -> None:
        self.partitions = frozenset(partitions)
        self.generation += 1

    def revoke(self) -> None:
        self.partitions = frozenset()
        self.generation += 1

    def still(self, generation: int) -> bool:
        """True while no rebalance happened since `generation` was read."""
        return self.generation == generation
