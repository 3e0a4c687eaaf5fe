"""One `beliefstream dev` per data dir: an exclusive `flock` on `<data_dir>/dev.lock`.

`dev` takes the lock before it starts anything (broker, store, models); the file then holds the
owner's pid and start time, so a second `dev` on the same dir says who holds it and exits without
touching the first one's broker or files. The kernel drops the lock when the owner exits, however it
exits (a SIGKILL too), so a stale file never blocks the next start.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from launch.errors import DataDirBusy

LOCK_FILE = "dev.lock"


@contextlib.contextmanager
def data_dir_lock(data_dir: Path) -> Iterator[Path]:
    """Hold `<data_dir>/dev.lock` for the block, or raise `DataDirBusy` naming its holder."""
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / LOCK_FILE
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(descriptor, 200, 0).decode(errors="replace").strip() or "pid unknown"
            raise DataDirBusy(
                f"another `beliefstream dev` ({holder}) holds {data_dir.resolve()}; "
                "stop it first, or start this one with another --data-dir"
            ) from None
        os.ftruncate(descriptor, 0)
        since = datetime.now(UTC).isoformat(timespec="seconds")
        os.pwrite(descriptor, f"pid {os.getpid()}, since {since}\n".encode(), 0)
        yield path
    finally:
        os.close(descriptor)  # releases the lock; the file stays (removing it would race a new owner)
