"""The sync lock: one holder at a time, released by the kernel when the holder dies."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from memgit.errors import LockHeld
from memgit.store.lock import lock_holder, sync_lock
from tests.conftest import ROOT

HOLD = """
import sys, time
from pathlib import Path
from memgit.store.lock import sync_lock
with sync_lock(Path(sys.argv[1]), wait=False):
    print("locked", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def hold(state_dir, seconds: float = 60) -> subprocess.Popen:
    """Start a process that holds the lock; return once it does."""
    child = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(state_dir), str(seconds)],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert child.stdout.readline().strip() == "locked"
    return child


def test_lock_is_free_then_held_by_us(tmp_path):
    state = tmp_path / "deep" / "memgit"
    assert lock_holder(state) is None
    with sync_lock(state, wait=False):
        assert lock_holder(state) == os.getpid()
        assert (state / "sync.lock").read_text().strip() == str(os.getpid())
    assert lock_holder(state) is None


def test_second_holder_without_wait_is_refused_with_the_pid(tmp_path):
    child = hold(tmp_path)
    try:
        assert lock_holder(tmp_path) == child.pid
        with pytest.raises(LockHeld, match=f"pid {child.pid}"), sync_lock(tmp_path, wait=False):
            pass
    finally:
        child.kill()
        child.wait()


def test_waiting_reports_the_holder_once_and_times_out(tmp_path):
    child = hold(tmp_path)
    seen = []
    try:
        started = time.monotonic()
        with pytest.raises(LockHeld, match="still running"), sync_lock(
            tmp_path, wait=True, timeout=0.3, on_wait=seen.append
        ):
            pass
        assert time.monotonic() - started >= 0.3
        assert seen == [child.pid]
    finally:
        child.kill()
        child.wait()


def test_waiting_gets_the_lock_when_the_holder_finishes(tmp_path):
    child = hold(tmp_path, seconds=0.3)
    seen = []
    with sync_lock(tmp_path, wait=True, timeout=30, on_wait=seen.append):
        assert lock_holder(tmp_path) == os.getpid()
    assert seen == [child.pid]
    assert child.wait() == 0


def test_a_killed_holder_releases_the_lock(tmp_path):
    child = hold(tmp_path)
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert (tmp_path / "sync.lock").read_text().strip() == str(child.pid)  # stale pid, free lock
    assert lock_holder(tmp_path) is None
    with sync_lock(tmp_path, wait=False):
        assert lock_holder(tmp_path) == os.getpid()
