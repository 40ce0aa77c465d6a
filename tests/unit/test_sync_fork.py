"""sync_fork: work spread over forked workers comes back complete and in order, whatever a worker does."""

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from memgit.verbs import sync_fork

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="workers are forked processes")


def reaped(pids) -> bool:
    """True when none of `pids` is a child of this process any more (ended and waited for)."""
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue
        return False
    return True


def square_and_pid(n: int) -> tuple[int, int]:
    time.sleep(0.002 * (n % 5))  # uneven work: results arrive out of order
    return n * n, os.getpid()


def test_results_come_back_in_order_from_other_processes():
    got = list(sync_fork.ordered(square_and_pid, list(range(60)), 3))
    assert [i for i, _ in got] == list(range(60))
    assert [value for _, (value, _) in got] == [n * n for n in range(60)]
    pids = {pid for _, (_, pid) in got}
    assert os.getpid() not in pids and len(pids) >= 2  # spread over the workers
    assert reaped(pids)


def test_an_exception_is_raised_at_its_item_after_the_ones_before():
    def failing(n: int) -> tuple[int, int]:
        if n == 7:
            raise ValueError("item seven is bad")
        return n, os.getpid()

    seen = []
    with pytest.raises(ValueError, match="item seven is bad"):
        for i, value in sync_fork.ordered(failing, list(range(20)), 2):
            seen.append(value)
    assert [n for n, _ in seen] == list(range(7))
    assert reaped({pid for _, pid in seen})


def test_a_worker_killed_midway_loses_nothing():
    parent = os.getpid()

    def dies_on_five(n: int) -> tuple[int, int]:
        if n == 5 and os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)  # out of memory, say
        return n, os.getpid()

    got = list(sync_fork.ordered(dies_on_five, list(range(30)), 2))
    assert [value for _, (value, _) in got] == list(range(30))
    assert dict(got)[5][1] == parent  # the item the dead worker held was done in this process
    assert reaped({pid for _, (_, pid) in got} - {parent})


def test_stopping_early_ends_the_workers():
    pids = set()
    for i, (_, pid) in sync_fork.ordered(square_and_pid, list(range(200)), 2):
        pids.add(pid)
        if i == 3:
            break
    assert pids and reaped(pids)


def test_how_many_workers():
    assert sync_fork.workers(4, sync_fork.MIN_ITEMS - 1) == 0  # the sync after one session: no fork
    assert sync_fork.workers(1, 100) == 0  # extract.concurrency = 1 says one at a time
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    alone = threading.active_count() == 1  # a test server of another test may run in this process
    assert sync_fork.workers(4, 100) == (min(4, cores) if cores >= 2 and alone else 0)
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert sync_fork.workers(4, 100) == 0  # a process with threads is not forked
    finally:
        stop.set()
        thread.join()


def test_workers_end_when_the_syncing_process_is_killed(tmp_path):
    script = textwrap.dedent("""
        import os, sys, time
        from memgit.verbs import sync_fork
        def slow(n):
            time.sleep(0.05)
            return os.getpid()
        for i, pid in sync_fork.ordered(slow, list(range(1000)), 2):
            print(pid, flush=True)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    workers = {int(proc.stdout.readline()) for _ in range(6)}
    assert workers and proc.pid not in workers
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(running(pid) for pid in workers):
        time.sleep(0.05)
    assert not any(running(pid) for pid in workers), "a worker outlived the process that forked it"


def running(pid: int) -> bool:
    """True while `pid` runs (a zombie waiting for its reaper has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return state not in ("Z", "X")


def test_no_worker_can_be_forked_then_this_process_does_it_all(monkeypatch):
    def refused():
        raise BlockingIOError(11, "Resource temporarily unavailable")  # fork's EAGAIN at a process limit

    monkeypatch.setattr(sync_fork.os, "fork", refused)
    got = list(sync_fork.ordered(square_and_pid, list(range(12)), 2))
    assert [value for _, (value, _) in got] == [n * n for n in range(12)]
    assert {pid for _, (_, pid) in got} == {os.getpid()}


class Unbuildable(Exception):
    """An exception pickle writes but cannot rebuild (its __init__ wants more than its args)."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code


def test_a_result_that_cannot_travel_is_made_here():
    parent = os.getpid()

    def odd(n: int):
        if n == 3:
            return lambda: n if os.getpid() == parent else None  # cannot be pickled in a worker
        if n == 4:
            return Unbuildable("odd", 4)  # pickled there, cannot be rebuilt here
        return n, os.getpid()

    got = dict(sync_fork.ordered(odd, list(range(10)), 2))
    assert got[3]() == 3  # made in this process
    assert isinstance(got[4], Unbuildable) and got[4].code == 4
    assert [got[n][0] for n in (0, 1, 2, 5, 9)] == [0, 1, 2, 5, 9]
