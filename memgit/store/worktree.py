"""Keep the checked-out branch's worktree and index true to its head (DESIGN §3).

When memgit moves the checked-out branch, the worktree follows like `git merge --ff-only`:
only the paths the commit changed, and never over a person's unrecorded edit. A journal
(`.git/memgit/worktree.json`) written before the ref moves lets the next run finish an update
a crash interrupted. The index is patched in place (raw v2/v3 records, spliced), because
rebuilding a 10k-entry index through dulwich costs ~180 ms per commit.
"""

from __future__ import annotations

import bisect
import fcntl
import hashlib
import io
import json
import logging
import os
import stat
import struct
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from dulwich.ignore import IgnoreFilter, IgnoreFilterManager
from dulwich.index import read_index_dict_with_version, write_index_dict
from dulwich.objects import Blob
from dulwich.repo import Repo

from memgit.errors import MemgitError

JOURNAL = "worktree.json"
# Editor and OS litter: never a person's edit, even on a branch without the template .gitignore
# (repos made before it shipped, a person who removed a line). Keep in step with templates/repo/.gitignore.
ALWAYS_IGNORED = (".DS_Store", "._*", "Thumbs.db", "desktop.ini", "*.swp", "*.swo", "*.swn", "*~", ".#*",
                  "\\#*#", ".idea/", ".vscode/")
_ENTRY = struct.Struct(">10I20sH")  # ctime s,ns  mtime s,ns  dev ino mode uid gid size  sha  flags
_M32 = 0xFFFFFFFF
_INDEX_LOCK_WAIT = 5.0  # seconds to wait for a git process holding index.lock
_KEEP = object()  # "leave this index entry alone"
log = logging.getLogger(__name__)

State = tuple[int, bytes]  # (mode, hex sha) of a file in a tree, the index or the worktree


class _Index:
    """A v2/v3 index as raw bytes, with the offset and name of every entry, patched by splicing."""

    __slots__ = ("data", "version", "starts", "names", "end")

    def __init__(self, data: bytes, version: int, starts: list[int], names: list[bytes], end: int):
        self.data, self.version, self.starts, self.names, self.end = data, version, starts, names, end

    @classmethod
    def parse(cls, data: bytes) -> _Index:
        try:
            return cls._parse(data)
        except (struct.error, ValueError, IndexError) as e:
            raise MemgitError(
                "the memory repository's .git/index is corrupt; rebuild it with "
                "`rm .git/index && git reset` in the repository"
            ) from e

    @classmethod
    def _parse(cls, data: bytes) -> _Index:
        if not data:
            return cls(b"", 2, [], [], 12)
        sig, version, count = struct.unpack_from(">4sII", data)
        if sig != b"DIRC" or version not in (2, 3, 4):
            raise ValueError(sig)
        if version == 4:  # path-compressed: let dulwich expand it once, then keep it as v2
            entries, _, _ = read_index_dict_with_version(io.BytesIO(data))
            buf = io.BytesIO()
            write_index_dict(buf, entries, version=2)
            return cls._parse(buf.getvalue())
        starts, names, unpack, pos = [], [], struct.unpack_from, 12
        for _ in range(count):
            flags = unpack(">H", data, pos + 60)[0]
            name_at = pos + (64 if flags & 0x4000 else 62)
            length = flags & 0xFFF
            if length == 0xFFF:
                length = data.index(b"\0", name_at) - name_at
            starts.append(pos)
            names.append(data[name_at : name_at + length])
            pos += (name_at - pos + length + 8) & ~7
        ext = pos
        while ext < len(data) - 20:  # optional extensions (TREE, UNTR...) are dropped on write
            sig = data[ext : ext + 4]
            if not b"A" <= sig[:1] <= b"Z":
                raise MemgitError(
                    f"the index uses the {sig.decode('ascii', 'replace')!r} extension "
                    "(split or sparse index), which memgit cannot keep in sync; "
                    "run `git config core.splitIndex false && git sparse-checkout disable`"
                )
            ext += 8 + struct.unpack_from(">I", data, ext + 4)[0]
        return cls(data, version, starts, names, pos)

    def get(self, name: bytes) -> State | None | object:
        """Return the stage-0 entry's (mode, sha), None if absent, _KEEP if conflicted."""
        i = bisect.bisect_left(self.names, name)
        if i == len(self.names) or self.names[i] != name:
            return None
        fields = _ENTRY.unpack_from(self.data, self.starts[i])
        if fields[11] & 0x3000 or (i + 1 < len(self.names) and self.names[i + 1] == name):
            return _KEEP
        return fields[6], fields[10].hex().encode()

    def entries(self) -> Iterator[tuple[bytes, tuple]]:
        for name, start in zip(self.names, self.starts):
            yield name, _ENTRY.unpack_from(self.data, start)

    def patched(self, updates: dict[bytes, bytes | None]) -> _Index:
        """Return the index with each named entry replaced by a raw record (None: removed)."""
        view = memoryview(self.data)
        chunks: list = [b""]  # the header, once the count is known
        starts: list[int] = []
        names: list[bytes] = []
        n, done, out = len(self.names), 0, 12

        def copy(upto: int) -> None:  # entries done..upto unchanged, shifted to `out`
            nonlocal out
            if upto <= done:
                return
            a, b = self.starts[done], self.starts[upto] if upto < n else self.end
            chunks.append(view[a:b])
            shift = out - a
            kept = self.starts[done:upto]
            starts.extend([s + shift for s in kept] if shift else kept)
            names.extend(self.names[done:upto])
            out += b - a

        for name in sorted(updates):
            i = bisect.bisect_left(self.names, name, done)
            copy(i)
            done = bisect.bisect_right(self.names, name, max(i, done))
            if (record := updates[name]) is not None:
                chunks.append(record)
                starts.append(out)
                names.append(name)
                out += len(record)
        copy(n)
        chunks[0] = struct.pack(">4sII", b"DIRC", self.version, len(names))
        digest = hashlib.sha1()
        for chunk in chunks:
            digest.update(chunk)
        chunks.append(digest.digest())
        return _Index(b"".join(chunks), self.version, starts, names, out)


def checked_out(refs) -> str | None:
    """Return the branch HEAD points at, None when HEAD is detached."""
    head = refs.read_ref(b"HEAD")
    if head and head.startswith(b"ref: refs/heads/"):
        return head[len(b"ref: refs/heads/") :].strip().decode()
    return None


def tree_diff(
    store, old: bytes | None, new: bytes | None, prefix: bytes = b""
) -> Iterator[tuple[bytes, State | None, State | None]]:
    """Yield (path, old (mode, sha) or None, new (mode, sha) or None) per changed file, sorted.

    Descends only into subtrees whose ids differ; ~20x faster than dulwich's tree_changes,
    which builds an entry object for every name of every tree it visits.
    """
    if old == new:
        return
    a = {e.path: (e.mode, e.sha) for e in store[old].iteritems()} if old else {}
    b = {e.path: (e.mode, e.sha) for e in store[new].iteritems()} if new else {}
    for name in sorted({name for name, _ in a.items() ^ b.items()}):
        ea, eb = a.get(name), b.get(name)
        a_dir, b_dir = bool(ea and stat.S_ISDIR(ea[0])), bool(eb and stat.S_ISDIR(eb[0]))
        if a_dir or b_dir:
            yield from tree_diff(
                store, ea[1] if a_dir else None, eb[1] if b_dir else None, prefix + name + b"/"
            )
        if (ea and not a_dir) or (eb and not b_dir):
            yield prefix + name, None if a_dir else ea, None if b_dir else eb


def _record(name: bytes, st: os.stat_result, mode: int, sha: bytes) -> bytes:
    """Encode one stage-0 index entry (v2 layout) for a file just written or verified."""
    head = _ENTRY.pack(
        int(st.st_ctime_ns // 10**9) & _M32, st.st_ctime_ns % 10**9,
        int(st.st_mtime_ns // 10**9) & _M32, st.st_mtime_ns % 10**9,
        st.st_dev & _M32, st.st_ino & _M32, mode, st.st_uid & _M32, st.st_gid & _M32,
        st.st_size & _M32, bytes.fromhex(sha.decode()), min(len(name), 0xFFF),
    )  # fmt: skip
    return head + name + b"\0" * (8 - (62 + len(name)) % 8)


def _file_mode(st: os.stat_result) -> int | None:
    if stat.S_ISLNK(st.st_mode):
        return 0o120000
    if stat.S_ISREG(st.st_mode):
        return 0o100755 if st.st_mode & 0o100 else 0o100644
    return None


def _content(full: bytes, mode: int) -> bytes:
    if mode == 0o120000:
        return os.readlink(full)
    with open(full, "rb") as f:
        return f.read()


class Worktree:
    """The worktree and index of a non-bare repository, moved along with its checked-out branch."""

    def __init__(self, repo: Repo, objects):
        self._repo = repo
        self._objects = objects  # the object store, or a caching view of it
        self.root = os.fsencode(os.path.abspath(repo.path)).rstrip(b"/")
        self.gitdir = Path(repo.controldir())
        self.state = self.gitdir / "memgit"
        self._journal = self.state / JOURNAL
        self._index_path = self.gitdir / "index"
        self._lock_fd: int | None = None
        self._depth = 0
        self._cache: _Index | None = None

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
            self._read_index()  # a corrupt or unsupported index fails before the ref moves
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
            head = self._repo.refs.read_ref(b"refs/heads/" + branch.encode())
            if checked_out(self._repo.refs) == branch and head and head.decode() == new:
                old_b, new_b = (old.encode() if old else None), new.encode()
                self._advance(self._take_index(branch, old_b, new_b), old_b, new_b)
            self._journal.unlink()

    def _advance(self, lock: int, old: bytes | None, new: bytes) -> None:
        """Apply old->new to the worktree and index; takes ownership of the index lock."""
        try:
            store = self._objects
            old_tree = store[old].tree if old else None
            changes = sorted(  # deletions first: a file may give way to a directory
                tree_diff(store, old_tree, store[new].tree), key=lambda c: (c[2] is not None, c[0])
            )
            index = self._read_index()
            updates: dict[bytes, bytes | None] = {}
            for path, old_state, new_state in changes:
                record = self._sync_path(path, old_state, new_state, index)
                if record is not _KEEP:
                    updates[path] = record
        except BaseException:
            self._release_index(lock)
            raise
        self._write_index(lock, index.patched(updates) if updates else index)

    def _sync_path(self, path: bytes, old: State | None, new: State | None, index: _Index):
        """Bring one changed path from old to new unless a person changed it; return its record."""
        full = self.root + b"/" + path
        entry = index.get(path)
        current = self._state(full)
        if current == new:
            return self._record_for(path, full, new)
        if current != old or entry != old or (new and new[0] == 0o160000):
            return _KEEP  # a person's edit (or a submodule): leave file and index entry alone
        if new is None:
            os.unlink(full)
            self._prune_dirs(os.path.dirname(full))
            return None
        try:
            self._write_file(full, *new)
        except OSError:
            return _KEEP  # something of the person's is in the way (a directory, a file as parent)
        return self._record_for(path, full, new)

    @staticmethod
    def _state(full: bytes) -> State | None | object:
        """Return what is at full: (mode, sha) of a file, None, or _KEEP for anything else."""
        try:
            st = os.lstat(full)
        except (FileNotFoundError, NotADirectoryError):
            return None
        mode = _file_mode(st)
        if mode is None:
            return _KEEP  # a directory or something odd where a file should be
        return mode, Blob.from_string(_content(full, mode)).id

    def _record_for(self, path: bytes, full: bytes, state: State | None) -> bytes | None:
        return None if state is None else _record(path, os.lstat(full), state[0], state[1])

    def _write_file(self, full: bytes, mode: int, sha: bytes) -> None:
        os.makedirs(os.path.dirname(full), exist_ok=True)
        tmp = os.fsencode(self.state / f"tmp-{os.getpid()}")
        if os.path.lexists(tmp):
            os.unlink(tmp)
        data = self._objects[sha].data
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

    def _read_index(self) -> _Index:
        try:
            data = self._index_path.read_bytes()
        except FileNotFoundError:
            data = b""
        cached = self._cache
        if cached is not None and len(cached.data) == len(data) and cached.data[-20:] == data[-20:]:
            return cached
        self._cache = _Index.parse(data)
        return self._cache

    def _write_index(self, lock: int, index: _Index) -> None:
        with os.fdopen(lock, "wb") as f:
            f.write(index.data)
        os.replace(self.gitdir / "index.lock", self._index_path)
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

    # -- a person's edits -------------------------------------------------------------------

    def edits(self, head_tree: bytes) -> dict[bytes, tuple[int, bytes] | None]:
        """Return what the worktree changed against head_tree: {path: (mode, data) | None}."""
        head: dict[bytes, State] = {}
        self._flatten(head_tree, b"", head)
        index = self._read_index()
        try:
            index_time = os.stat(self._index_path).st_mtime_ns
        except FileNotFoundError:
            index_time = 0
        cached: dict[bytes, tuple] = {}
        for name, fields in index.entries():
            if fields[11] & 0x3000:
                raise MemgitError(
                    f"{os.fsdecode(self.root)} has an unfinished merge ({os.fsdecode(name)} is "
                    "conflicted); finish it with git (commit or `git merge --abort`), then retry"
                )
            cached[name] = fields
        changes: dict[bytes, tuple[int, bytes] | None] = {}
        for path in head.keys() | cached.keys():
            if head.get(path, (0,))[0] == 0o160000:
                continue  # submodules are not memgit's business
            full = self.root + b"/" + path
            try:
                st = os.lstat(full)
            except (FileNotFoundError, NotADirectoryError):
                st = None
            mode = _file_mode(st) if st else None
            if mode is None:
                if path in head:
                    changes[path] = None
                continue
            fields, data = cached.get(path), None
            if fields and self._stat_clean(fields, st, mode, index_time):
                state: State = (mode, fields[10].hex().encode())
            else:
                data = _content(full, mode)
                state = (mode, Blob.from_string(data).id)
            if head.get(path) != state:
                changes[path] = (mode, _content(full, mode) if data is None else data)
        for path in self._untracked(head.keys() | cached.keys()):
            full = self.root + b"/" + path
            mode = _file_mode(os.lstat(full))
            if mode is not None:
                changes[path] = (mode, _content(full, mode))
        return changes

    def _flatten(self, tree: bytes, prefix: bytes, out: dict[bytes, State]) -> None:
        for name, mode, sha in self._objects[tree].iteritems():
            if stat.S_ISDIR(mode):
                self._flatten(sha, prefix + name + b"/", out)
            else:
                out[prefix + name] = (mode, sha)

    @staticmethod
    def _stat_clean(fields: tuple, st: os.stat_result, mode: int, index_time: int) -> bool:
        """Trust the index's stat cache the way git does, racily-clean entries excepted."""
        mtime = fields[2] * 10**9 + fields[3]
        return (
            fields[6] == mode
            and mtime == st.st_mtime_ns
            and fields[0] * 10**9 + fields[1] == st.st_ctime_ns
            and fields[9] == st.st_size & _M32
            and fields[5] == st.st_ino & _M32
            and mtime < index_time
        )

    def _untracked(self, tracked: set[bytes]) -> Iterator[bytes]:
        tracked_dirs: set[bytes] = set()
        for path in tracked:
            while (cut := path.rfind(b"/")) > 0 and (path := path[:cut]) not in tracked_dirs:
                tracked_dirs.add(path)
        ignore = IgnoreFilterManager.from_repo(self._repo)
        litter = IgnoreFilter([p.encode() for p in ALWAYS_IGNORED])
        stack = [b""]
        while stack:
            rel = stack.pop()
            with os.scandir(self.root + b"/" + rel if rel else self.root) as it:
                for entry in it:
                    path = rel + b"/" + entry.name if rel else entry.name
                    if entry.name == b".git":
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        if os.path.lexists(entry.path + b"/.git"):
                            continue  # a nested repository
                        name = os.fsdecode(path) + "/"
                        if path in tracked_dirs or not (ignore.is_ignored(name) or litter.is_ignored(name)):
                            stack.append(path)
                    elif path not in tracked:
                        name = os.fsdecode(path)
                        if not (ignore.is_ignored(name) or litter.is_ignored(name)):
                            yield path
