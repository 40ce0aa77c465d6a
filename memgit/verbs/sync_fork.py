"""Work done by forked worker processes, its results handed back in order (the heuristic sync's reading,
redaction and extraction: CPU-bound Python, which threads cannot spread over cores).

The workers are plain forks that share nothing writable with the syncing process: each takes the
next index from one task pipe (a 4-byte write is atomic, so no two take the same), runs the function
on that item of the list it inherited, and writes the pickled result to a pipe of its own. The
syncing process alone writes to the repository, in the items' order, as it did before.

Nothing is lost when a worker fails: a function's exception comes back as its result, and a worker
that dies (killed, out of memory) ends the forking; the items not handed back are done in this
process. When the syncing process is killed, its end of the task pipe closes: each worker finishes
the item it holds, finds no next one (or a closed result pipe) and exits.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import sys
import threading
import traceback
from typing import Callable, Iterator, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")

MIN_ITEMS = 8  # fewer sessions (the sync after one session) cost less than starting workers
_INDEX = struct.Struct("<I")
_HEADER = struct.Struct("<IQ")  # index, length of the pickled result


def workers(wanted: int, items: int) -> int:
    """How many worker processes to fork for `items` (0: do them in this process).

    At most `wanted` (the `extract.concurrency` setting) and the cores this process may run on; none
    without fork, for few items, or when the process runs threads (a fork copies their locks held).
    """
    if items < MIN_ITEMS or wanted < 2 or not hasattr(os, "fork") or threading.active_count() > 1:
        return 0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    count = min(wanted, cores, items)
    return count if count >= 2 else 0


def ordered(fn: Callable[[T], R], items: Sequence[T], count: int) -> Iterator[tuple[int, R]]:
    """Yield (i, fn(items[i])) for every item, in order; `count` forked workers compute them.

    `fn` should return its failures as values; an exception it raises is raised here, at its item,
    as in a loop. The workers run at most four items per worker ahead of the one the caller is at,
    so the results waiting here stay few.
    """
    pool = _Pool(fn, items, count)
    try:
        yield from pool.results()
    finally:
        pool.close()


class _Pool:
    def __init__(self, fn: Callable[[T], R], items: Sequence[T], count: int):
        self.fn, self.items = fn, items
        self.ahead = 4 * count
        self.sent = 0
        self.tasks_r, self.tasks_w = os.pipe()
        self.children: dict[int, int] = {}  # result pipe's read end -> worker pid
        self.buffers: dict[int, bytearray] = {}
        for _ in range(count):
            try:
                r, w = os.pipe()
            except OSError:  # out of descriptors: fewer workers (none: all of it in this process)
                break
            try:
                pid = os.fork()
            except OSError:  # out of processes or memory: the same
                os.close(r)
                os.close(w)
                break
            if pid == 0:  # the worker: never returns
                os.close(r)
                os.close(self.tasks_w)
                for other in self.children:
                    os.close(other)
                _work(fn, items, self.tasks_r, w)
            os.close(w)
            self.children[r] = pid
            self.buffers[r] = bytearray()
        os.close(self.tasks_r)

    def _feed(self, upto: int) -> None:
        """Hand out indices until `upto` (bounded look-ahead); close the pipe after the last one."""
        if not self.children:  # none forked, or all gone: nobody reads the pipe
            return
        while self.sent < min(upto, len(self.items)):
            try:
                os.write(self.tasks_w, _INDEX.pack(self.sent))
            except BrokenPipeError:  # every worker died before it was noticed: see results
                self._stop()
                return
            self.sent += 1
        if self.sent == len(self.items) and self.tasks_w >= 0:
            os.close(self.tasks_w)
            self.tasks_w = -1

    def results(self) -> Iterator[tuple[int, R]]:
        done: dict[int, R] = {}
        following = 0  # the next index to yield
        self._feed(self.ahead)
        while following < len(self.items):
            if following in done:
                yield following, _returned(done.pop(following))
                following += 1
                self._feed(following + self.ahead)
                continue
            if not self.children:  # every worker gone before its work came back: this process does the rest
                break
            ready, _, _ = select.select(list(self.children), [], [])
            for fd in ready:
                if fd not in self.children:  # closed when another worker's death stopped the pool
                    continue
                for index, value in self._read(fd):
                    done[index] = value
        for index in range(following, len(self.items)):  # a worker died: the same work, here
            yield index, _returned(done.pop(index)) if index in done else self.fn(self.items[index])

    def _read(self, fd: int) -> list[tuple[int, R]]:
        chunk = os.read(fd, 1 << 20)
        if not chunk:  # the worker exited: after its last item, or died holding one (then the rest runs here)
            os.close(fd)
            pid = self.children.pop(fd)
            _, status = os.waitpid(pid, 0)
            if status != 0:
                self._stop()
            return []
        buffer = self.buffers[fd]
        buffer += chunk
        out = []
        while len(buffer) >= _HEADER.size:
            index, length = _HEADER.unpack_from(buffer)
            if len(buffer) < _HEADER.size + length:
                break
            try:
                value = pickle.loads(bytes(buffer[_HEADER.size:_HEADER.size + length]))
            except Exception:  # a value that cannot be rebuilt here (an odd exception's arguments)
                value = _LOST
            del buffer[:_HEADER.size + length]
            out.append((index, self._here(index) if value is _LOST else value))
        return out

    def _here(self, index: int):
        """Item `index` done in this process, as a loop would: for a value that could not travel."""
        try:
            return self.fn(self.items[index])
        except Exception as e:
            return _Raised(e)

    def _stop(self) -> None:
        """Stop handing out work: what is left is done in this process (see results)."""
        self.sent = len(self.items)
        self.close()

    def close(self) -> None:
        """End every worker and reap it (a worker never outlives its pool)."""
        if self.tasks_w >= 0:
            os.close(self.tasks_w)
            self.tasks_w = -1
        for fd, pid in list(self.children.items()):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
            os.close(fd)
        self.children.clear()


def _work(fn: Callable, items: Sequence, tasks: int, out: int) -> None:
    """A worker's life: take an index, write back fn's result, until the task pipe is closed."""
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends the workers with the run
        while len(taken := os.read(tasks, _INDEX.size)) == _INDEX.size:
            (index,) = _INDEX.unpack(taken)
            data = _pickled(fn, items[index])
            _write_all(out, _HEADER.pack(index, len(data)) + data)
    except BrokenPipeError:  # the syncing process is gone: nobody waits for the results
        code = 1
    except BaseException:  # a fault of the pool itself: the syncing process does the rest
        traceback.print_exc(file=sys.stderr)
        code = 1
    finally:
        os._exit(code)  # no cleanup of the syncing process's state (its lock, its repository) runs here


def _pickled(fn: Callable, item) -> bytes:
    try:
        value = fn(item)
    except Exception as e:  # raised by the caller for this item, as a loop would
        value = _Raised(e)
    try:
        return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # a value that cannot travel: the syncing process does the item itself
        return pickle.dumps(_LOST, protocol=pickle.HIGHEST_PROTOCOL)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


class _Lost:
    """A result that could not travel between the processes (see _Pool._here)."""

    def __reduce__(self):
        return "_LOST"  # one instance on both sides: compared with `is`


_LOST = _Lost()


def _returned(value):
    if isinstance(value, _Raised):
        raise value.error
    return value


class _Raised:
    """An exception `fn` raised in a worker, raised again in the syncing process for its item."""

    def __init__(self, error: Exception):
        self.error = error
