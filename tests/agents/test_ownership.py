"""Who maintains whom: partitions decide, closed windows are handed out once, oldest first."""

from __future__ import annotations

from agents.ownership import (
    Assignment,
    UserWindow,
    closed_windows,
    grouped_by_window,
    key_digest,
    owned_users,
    owns,
    split_key,
    window_of,
)
from streams.partitioner import partition_for, turn_key

PARTITIONS = 4
USERS = [(f"t{i % 3}", f"u{i}") for i in range(200)]


def test_two_workers_split_the_users_without_overlap_or_gap() -> None:
    first = owned_users(USERS, {0, 2}, PARTITIONS)
    second = owned_users(USERS, {1, 3}, PARTITIONS)
    assert not set(first) & set(second)
    assert sorted(first + second) == sorted(USERS)
    assert first and second


def test_the_users_follow_their_partition_on_a_rebalance() -> None:
    before = set(owned_users(USERS, {0, 2}, PARTITIONS))
    after = set(owned_users(USERS, {0, 1, 2, 3}, PARTITIONS))  # the other worker left
    assert before < after
    moved = after - before
    assert all(partition_for(turn_key(*user), PARTITIONS) in {1, 3} for user in moved)


def test_ownership_of_a_key_is_its_partition() -> None:
    key = "acme:u7"
    mine = partition_for(key.encode(), PARTITIONS)
    assert owns(key, {mine}, PARTITIONS)
    assert not owns(key, set(range(PARTITIONS)) - {mine}, PARTITIONS)
    assert not owns(key, set(), PARTITIONS)


def _key_in(partition: int) -> str:
    return next(f"acme:u{i}" for i in range(1000) if partition_for(f"acme:u{i}".encode(), PARTITIONS) == partition)


def test_only_closed_windows_of_owned_keys_are_handed_out() -> None:
    mine, theirs = _key_in(0), _key_in(1)
    keys = [
        (mine, (0.0, 10.0)),  # closed long ago
        (mine, (10.0, 20.0)),  # ended, but within the grace
        (mine, (20.0, 30.0)),  # still open
        (theirs, (0.0, 10.0)),  # closed, another worker's
    ]
    assert closed_windows(keys, now=21.0, grace_s=2.0, assigned={0}, partitions=PARTITIONS) == [
        UserWindow(0.0, 10.0, mine)
    ]
    assert [w.start for w in closed_windows(keys, 22.0, 2.0, {0}, PARTITIONS)] == [0.0, 10.0]
    assert closed_windows(keys, 1000.0, 2.0, set(), PARTITIONS) == []


def test_closed_windows_are_maintained_oldest_first_one_window_at_a_time() -> None:
    keys = [("acme:b", (10.0, 20.0)), ("acme:a", (10.0, 20.0)), ("acme:c", (0.0, 10.0)), ("acme:a", (10.0, 20.0))]
    entries = closed_windows(keys, 100.0, 0.0, set(range(PARTITIONS)), PARTITIONS)
    runs = grouped_by_window(entries)
    assert [[(e.start, e.key) for e in run] for run in runs] == [
        [(0.0, "acme:c")],
        [(10.0, "acme:a"), (10.0, "acme:b")],  # a key listed twice is maintained once
    ]


def test_keys_split_at_the_first_colon() -> None:
    assert split_key("acme:user:with:colons") == ("acme", "user:with:colons")
    assert split_key("no-colon") is None
    assert split_key(":u") is None
    assert UserWindow(0.0, 1.0, "acme:u1").user == ("acme", "u1")


def test_a_rebalance_ends_the_pass_in_flight() -> None:
    assignment = Assignment()
    assignment.assign([0, 2])
    generation = assignment.generation
    assert assignment.still(generation) and assignment.partitions == {0, 2}
    assignment.revoke()
    assert not assignment.still(generation) and assignment.partitions == frozenset()
    assignment.assign([0, 1, 2, 3])
    assert not assignment.still(generation)


def test_tumbling_windows_are_aligned_and_half_open() -> None:
    assert window_of(1000.0, 60.0) == (960.0, 1020.0)
    assert window_of(960.0, 60.0) == (960.0, 1020.0)  # a window holds its start...
    assert window_of(1019.999, 60.0) == (960.0, 1020.0)
    assert window_of(1020.0, 60.0) == (1020.0, 1080.0)  # ...not its end


def test_a_log_line_names_a_user_by_a_digest_of_the_key() -> None:
    digest = key_digest("acme:alice@example.com")
    assert len(digest) == 16 and "alice" not in digest
    assert digest == key_digest("acme:alice@example.com") != key_digest("acme:bob")
