"""One `memgit sync` at a time per repository: an flock on <state_dir>/sync.lock.

The kernel drops an flock when its holder exits, however it exits (kill -9 included), so a
crashed sync never leaves a stale lock behind. The file holds the holder's pid, for messages.
Paths go through os.path, not pathlib: the session-start hook imports this module.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from memgit.errors import FULL_ERRNOS, LockHeld

LOCK_NAME = "sync.lock"
_POLL = 0.05  # seconds between attempts while waiting with a timeout
_SETTLE = 0.2  # a holder writes its pid right after locking; give it this long


@contextmanager
def sync_lock(
    state_dir: str | os.PathLike,
    *,
    wait: bool,
    timeout: float | None = None,
    on_wait: Callable[[int | None], None] | None = None,
) -> Iterator[None]:
    """Hold the repository's sync lock for the duration of the block.

    Args:
        state_dir: directory of the lock file (created with its parents).
        wait: block until the lock is free instead of failing at once.
        timeout: with wait=True, give up after this many seconds (None: wait forever).
        on_wait: called once with the holder's pid (None if unknown) before waiting.

    Raises:
        LockHeld: the lock is held and wait=False, or the timeout passed.
    """
    os.makedirs(state_dir, exist_ok=True)
    fd = os.open(os.path.join(state_dir, LOCK_NAME), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        if not _try_lock(fd):
            _acquire_contended(fd, wait, timeout, on_wait)
        _write_pid(fd)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)  # no stale pid for the next reader
    finally:
        os.close(fd)  # closing the descriptor releases the flock


def is_held(state_dir: str | os.PathLike) -> bool:
    """Tell whether a sync holds the lock, at once: no waiting, and the lock is not taken."""
    return _probe(state_dir, pid=False) is not None


def lock_holder(state_dir: str | os.PathLike) -> int | None:
    """Return the pid holding the sync lock (0 if it holds it without a pid yet), else None."""
    return _probe(state_dir, pid=True)


def _probe(state_dir: str | os.PathLike, *, pid: bool) -> int | None:
    try:
        fd = os.open(os.path.join(state_dir, LOCK_NAME), os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:  # a shared probe conflicts only with the holder's exclusive lock
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return (_settled_pid(fd) or 0) if pid else 0
        return None
    finally:
        os.close(fd)  # closing drops the probe's shared lock


def _acquire_contended(
    fd: int, wait: bool, timeout: float | None, on_wait: Callable[[int | None], None] | None
) -> None:
    pid = _settled_pid(fd)
    if pid is None and _try_lock(fd):  # only a lock_holder() probe was in the way
        return
    if not wait:
        raise LockHeld(
            f"another memgit sync is running (pid {pid or 'unknown'}); "
            "wait for it to finish, or run again with --wait"
        )
    if on_wait is not None:
        on_wait(pid)
    if not _lock_within(fd, timeout):
        raise LockHeld(
            f"another memgit sync is still running (pid {_read_pid(fd) or 'unknown'}) "
            f"after {timeout:g} s; try again later"
        )


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _lock_within(fd: int, timeout: float | None) -> bool:
    if timeout is None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return True
    deadline = time.monotonic() + timeout
    while not _try_lock(fd):
        if time.monotonic() >= deadline:
            return False
        time.sleep(_POLL)
    return True


def _settled_pid(fd: int) -> int | None:
    """Return the holder's pid, waiting briefly for a new holder to write it.

    None means no pid appeared: the holder is a lock_holder() probe (it holds the lock for
    microseconds) or a sync that has just locked and not yet written its pid.
    """
    deadline = time.monotonic() + _SETTLE
    while (pid := _read_pid(fd)) is None and time.monotonic() < deadline:
        time.sleep(0.01)
    return pid


def _write_pid(fd: int) -> None:
    """Write our pid into the lock file; on a full disk the lock holds without it (it only names us)."""
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    except OSError as e:
        if e.errno not in FULL_ERRNOS:
            raise


def _read_pid(fd: int) -> int | None:
    text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    return int(text) if text.isdigit() else None
