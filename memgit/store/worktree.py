"""Keep the checked-out branch's worktree and index true to its head (DESIGN §3).

When memgit moves the checked-out branch, the worktree follows like `git merge --ff-only`:
only the paths the commit changed, and never over a person's unrecorded edit. A journal
(`.git/memgit/worktree.json`) written before the ref moves lets the next run finish an update
a crash interrupted. The index is patched in place (index.py); finding a person's edits is
edits.py's job.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import stat
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from dulwich.objects import Blob
from dulwich.repo import Repo

from memgit.errors import MemgitError
from memgit.store.index import KEEP, Index, record
from memgit.store.objects import State, tree_diff

JOURNAL = "worktree.json"
_INDEX_LOCK_WAIT = 5.0  # seconds to wait for a git process holding index.lock
log = logging.getLogger(__name__)


def checked_out(refs) -> str | None:
    """Return the branch HEAD points at, None when HEAD is detached."""
    head = refs.read_ref(b"HEAD")
    if head and head.startswith(b"ref: refs/heads/"):
        return head[len(b"ref: refs/heads/") :].strip().decode()
    return None


def file_mode(st: os.stat_result) -> int | None:
    if stat.S_ISLNK(st.st_mode):
        return 0o120000
    if stat.S_ISREG(st.st_mode):
        return 0o100755 if st.st_mode & 0o100 else 0o100644
    return None


def file_content(full: bytes, mode: int) -> bytes:
    if mode == 0o120000:
        return os.readlink(full)
    with open(full, "rb") as f:
        return f.read()


class Worktree:
    """The worktree and index of a non-bare repository, moved along with its checked-out branch."""

    def __init__(self, repo: Repo, objects):
        self.repo = repo
        self.objects = objects  # the object store, or a caching view of it
        self.root = os.fsencode(os.path.abspath(repo.path)).rstrip(b"/")
        self.gitdir = Path(repo.controldir())
        self.state = self.gitdir / "memgit"
        self._journal = self.state / JOURNAL
        self.index_path = self.gitdir / "index"
        self._lock_fd: int | None = None
        self._depth = 0
        self._cache: Index | None = None

    # -- serialisation between memgit processes ------------------------------------------

    @contextmanager
    def locked(self, *, blocking: bool = True) -> Iterator[bool]:
        """Hold the worktree flock (reentrant); yield False if busy and not blocking."""
        if self._depth == 0:
            self.state.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.state / "worktree.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
            except BlockingIOError:
                os.close(fd)
                yield False
                return
            self._lock_fd = fd
        self._depth += 1
        try:
            yield True
        finally:
            self._depth -= 1
            if self._depth == 0 and self._lock_fd is not None:
                os.close(self._lock_fd)
                self._lock_fd = None

    # -- moving the checked-out branch ----------------------------------------------------

    def move(self, branch: str, old: bytes | None, new: bytes, cas: Callable[[], bool]) -> bool:
        """Move the checked-out `branch` from old to new with cas(), then the worktree.

        Order: journal, index.lock, ref, files, index, journal gone. Returns cas()'s verdict.
        Once the ref has moved, a failure to update the worktree is logged and left to the
        journal: the commit stands, and the next run finishes the job.
        """
        with self.locked():
            self.recover()
            self.read_index()  # a corrupt or unsupported index fails before the ref moves
            try:
                lock = self._take_index(branch, old, new)
            except BaseException:
                self._journal.unlink(missing_ok=True)  # the ref has not moved
                raise
            try:
                moved = cas()
            except BaseException:
                self._release_index(lock)
                raise  # the journal stays: recover() goes by where the ref is
            if not moved:
                self._release_index(lock)
                self._journal.unlink()
                return False
            try:
                self._advance(lock, old, new)
            except (OSError, MemgitError) as e:
                log.warning("worktree of %s not updated (%s); the next memgit run retries", branch, e)
                return True
            self._journal.unlink()
            return True

    def recover(self, *, blocking: bool = True) -> None:
        """Finish the worktree update a crash interrupted, or drop it if the ref never moved."""
        if not self._journal.exists():
            return
        with self.locked(blocking=blocking) as got:
            if not got:
                return  # the process holding the lock recovers first
            try:
                journal = json.loads(self._journal.read_bytes())
                branch, old, new = journal["branch"], journal["old"], journal["new"]
            except FileNotFoundError:
                return
            except (ValueError, KeyError, TypeError):
                self._journal.unlink()  # torn before the ref moved (the ref waits for its fsync)
                return
            self._release_index(None, journal.get("index_lock"))
            head = self.repo.refs.read_ref(b"refs/heads/" + branch.encode())
            if checked_out(self.repo.refs) == branch and head and head.decode() == new:
                old_b, new_b = (old.encode() if old else None), new.encode()
                self._advance(self._take_index(branch, old_b, new_b), old_b, new_b)
            self._journal.unlink()

    def _advance(self, lock: int, old: bytes | None, new: bytes) -> None:
        """Apply old->new to the worktree and index; takes ownership of the index lock."""
        try:
            store = self.objects
            old_tree = store[old].tree if old else None
            changes = sorted(  # deletions first: a file may give way to a directory
                tree_diff(store, old_tree, store[new].tree), key=lambda c: (c[2] is not None, c[0])
            )
            index = self.read_index()
            updates: dict[bytes, bytes | None] = {}
            for path, old_state, new_state in changes:
                record = self._sync_path(path, old_state, new_state, index)
                if record is not KEEP:
                    updates[path] = record
        except BaseException:
            self._release_index(lock)
            raise
        self._write_index(lock, index.patched(updates) if updates else index)

    def _sync_path(self, path: bytes, old: State | None, new: State | None, index: Index):
        """Bring one changed path from old to new unless a person changed it; return its record."""
        full = self.root + b"/" + path
        entry = index.get(path)
        current = self._state(full)
        if current == new:
            return self._record_for(path, full, new)
        if current != old or entry != old or (new and new[0] == 0o160000):
            return KEEP  # a person's edit (or a submodule): leave file and index entry alone
        if new is None:
            os.unlink(full)
            self._prune_dirs(os.path.dirname(full))
            return None
        try:
            self._write_file(full, *new)
        except OSError:
            return KEEP  # something of the person's is in the way (a directory, a file as parent)
        return self._record_for(path, full, new)

    @staticmethod
    def _state(full: bytes) -> State | None | object:
        """Return what is at full: (mode, sha) of a file, None, or KEEP for anything else."""
        try:
            st = os.lstat(full)
        except (FileNotFoundError, NotADirectoryError):
            return None
        mode = file_mode(st)
        if mode is None:
            return KEEP  # a directory or something odd where a file should be
        return mode, Blob.from_string(file_content(full, mode)).id

    def _record_for(self, path: bytes, full: bytes, state: State | None) -> bytes | None:
        return None if state is None else record(path, os.lstat(full), state[0], state[1])

    def _write_file(self, full: bytes, mode: int, sha: bytes) -> None:
        os.makedirs(os.path.dirname(full), exist_ok=True)
        tmp = os.fsencode(self.state / f"tmp-{os.getpid()}")
        if os.path.lexists(tmp):
            os.unlink(tmp)
        data = self.objects[sha].data
        if mode == 0o120000:
            os.symlink(data, tmp)
        else:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o777 if mode & 0o100 else 0o666)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        try:
            os.replace(tmp, full)  # atomic: a crash never leaves a half-written note
        except OSError:
            os.unlink(tmp)
            raise

    def _prune_dirs(self, directory: bytes) -> None:
        while len(directory) > len(self.root):
            try:
                os.rmdir(directory)
            except OSError:
                return
            directory = os.path.dirname(directory)

    # -- the index ------------------------------------------------------------------------

    def read_index(self) -> Index:
        try:
            data = self.index_path.read_bytes()
        except FileNotFoundError:
            data = b""
        cached = self._cache
        if cached is not None and len(cached.data) == len(data) and cached.data[-20:] == data[-20:]:
            return cached
        self._cache = Index.parse(data)
        return self._cache

    def _write_index(self, lock: int, index: Index) -> None:
        with os.fdopen(lock, "wb") as f:
            f.write(index.data)
        os.replace(self.gitdir / "index.lock", self.index_path)
        (self.state / "index.lock.tmp").unlink()
        self._cache = index

    def _take_index(self, branch: str, old: bytes | None, new: bytes) -> int:
        """Journal the move, then take .git/index.lock; return a descriptor open on the lock.

        The lock is taken as a hard link to a file whose inode the journal already names, so
        whenever a crash leaves an index.lock behind, the journal says whether it is memgit's.
        Like git, fail if another process holds the lock (after waiting a while for it).
        """
        tmp = self.state / "index.lock.tmp"
        tmp.unlink(missing_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
        try:
            self._write_journal(branch, old, new, os.fstat(fd))
            deadline = time.monotonic() + _INDEX_LOCK_WAIT
            while True:
                try:
                    os.link(tmp, self.gitdir / "index.lock")
                    return fd
                except FileExistsError:
                    if time.monotonic() > deadline:
                        raise MemgitError(
                            f"{self.gitdir / 'index.lock'} exists: another git process seems to be "
                            f"running in {os.fsdecode(self.root)}; if none is, remove it and retry"
                        ) from None
                    time.sleep(0.01)
        except BaseException:
            os.close(fd)
            tmp.unlink(missing_ok=True)
            raise

    def _release_index(self, lock: int | None, identity: list[int] | None = None) -> None:
        """Drop memgit's index.lock (by descriptor, or by the inode a journal names)."""
        if lock is not None:
            st = os.fstat(lock)
            identity = [st.st_dev, st.st_ino]
            os.close(lock)
        path = self.gitdir / "index.lock"
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            pass
        else:
            if identity == [st.st_dev, st.st_ino]:
                path.unlink()
        (self.state / "index.lock.tmp").unlink(missing_ok=True)

    def _write_journal(self, branch: str, old: bytes | None, new: bytes, lock: os.stat_result) -> None:
        data = json.dumps({
            "branch": branch, "old": old and old.decode(), "new": new.decode(),
            "index_lock": [lock.st_dev, lock.st_ino],
        })  # fmt: skip
        tmp = self.state / f"{JOURNAL}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
        try:
            os.write(fd, data.encode())
            os.fsync(fd)  # durable before the ref moves (the ref is fsynced too)
        finally:
            os.close(fd)
        os.replace(tmp, self._journal)
