"""The object store: parsed trees and commits kept for reuse, trees compared, new objects staged.

A commit is built in a `Staging` view first, so the gate can refuse it before a single object
reaches the disk; then its objects are written as one pack (packs.py), durable before any ref
names it, or held with a batch's others until the batch's one pack is written (commits.py).
"""

from __future__ import annotations

import stat
import zlib
from collections.abc import Iterator
from typing import NamedTuple

from dulwich.errors import ChecksumMismatch, FileFormatException
from dulwich.objects import Blob, Commit, ShaFile, Tree

from memgit.store.blobs import BATCH, read_objects
from memgit.store.packs import MAX_PACKS, compact, write_pack

# What dulwich raises reading a torn or garbled object file (TypeError: a loose file cut to one byte).
UNREADABLE = (KeyError, ValueError, OSError, FileFormatException, ChecksumMismatch, zlib.error, TypeError)
State = tuple[int, bytes]  # (mode, hex sha) of a file in a tree, the index or the worktree


class StoredObject(NamedTuple):
    sha: str
    kind: str  # blob, commit, tree, tag
    data: bytes  # a blob's content, a commit's message, a tree's entry names (one per line)
    tree: str = ""  # of a commit
    parents: tuple[str, ...] = ()  # of a commit
    time: int = 0  # of a commit
    entries: tuple[tuple[bytes, int, str], ...] = ()  # of a tree: (name, mode, sha)


def every_object(store) -> Iterator[StoredObject]:
    """Every object in the store, reachable or not (packs and loose), for a full scan."""
    return stored_objects(store, store)


def stored_objects(store, shas, *, git_dir=None, objects_dir: str | None = None) -> Iterator[StoredObject]:
    """The objects named by `shas`, read from `store` (a torn one is skipped: `git fsck` reports it);
    with `git_dir`, many at once by git when it is there (`objects_dir`: the object directory `store`
    is, when it is not the repository's own: a quarantine)."""
    if git_dir is not None:
        shas = list(shas)
        found = read_objects(git_dir, (sha.decode() for sha in shas), objects_dir=objects_dir) \
            if len(shas) >= BATCH else None
        if found is not None:
            for sha in shas:
                kind, data = found[sha.decode()]
                yield _stored(sha, kind, ShaFile.from_raw_string(_TYPE_NUM[kind], data) if kind in _TYPE_NUM else None, data)
            return
    for sha in shas:
        try:
            obj = store[sha]
        except UNREADABLE:
            continue
        yield _stored(sha, obj.type_name.decode(), obj, None)


_TYPE_NUM = {"commit": Commit.type_num, "tree": Tree.type_num}  # parsed: their parts are read


def _stored(sha: bytes, kind: str, obj: ShaFile | None, raw: bytes | None) -> StoredObject:
    """One object as a scan reads it, from the parsed object or (a blob, a tag) its raw content."""
    if isinstance(obj, Commit):
        return StoredObject(sha.decode(), "commit", obj.message, obj.tree.decode(),
                            tuple(p.decode() for p in obj.parents), obj.commit_time)
    if isinstance(obj, Tree):
        return StoredObject(sha.decode(), "tree", b"\n".join(e.path for e in obj.iteritems()),
                            entries=tuple((e.path, e.mode, e.sha.decode()) for e in obj.iteritems()))
    if raw is None:
        raw = obj.data if isinstance(obj, Blob) else obj.as_raw_string()
    return StoredObject(sha.decode(), kind, raw)


class Objects:
    """The object store, keeping parsed trees and commits (immutable by id) for reuse."""

    def __init__(self, store):
        self.store = store
        self._kept: dict[bytes, ShaFile] = {}
        # A batch's objects, not on disk yet (commits.py): read from here until its pack is written.
        self.pending: dict[bytes, ShaFile] | None = None

    def __getitem__(self, sha: bytes) -> ShaFile:
        obj = self._kept.get(sha)
        if obj is None and self.pending:
            obj = self.pending.get(sha)
        if obj is None:
            obj = self.store[sha]
            if not isinstance(obj, Blob):
                self.keep(obj)
        return obj

    def __contains__(self, sha: bytes) -> bool:
        return sha in self._kept or bool(self.pending) and sha in self.pending or sha in self.store

    def write(self, objects: list[ShaFile]) -> None:
        """Write one commit's new objects: as a pack now, or into the batch's pack when one is open."""
        if self.pending is not None:
            self.pending.update((o.id, o) for o in objects)
        else:  # a commit retried after a lost race has its objects on disk already: no pack again
            if write_pack(self.store, [o for o in objects if o.id not in self.store]):
                compact(self.store, max_packs=4 * MAX_PACKS)  # many commits: lookups stay few packs deep
        for obj in objects:
            if not isinstance(obj, Blob):
                self.keep(obj)

    def write_pending(self) -> None:
        """Write the batch's objects as one pack (durable on return); the batch stays open."""
        if self.pending:
            try:
                write_pack(self.store, self.pending.values())
            except BaseException:
                self._kept.clear()  # it may hold objects that never reached the disk
                raise
            self.pending = {}
            compact(self.store, max_packs=4 * MAX_PACKS)

    def keep(self, obj: ShaFile) -> None:
        if len(self._kept) >= 512:  # a commit needs ~10; a 10k-note scan ~200
            self._kept.clear()
        self._kept[obj.id] = obj

    def lookup(self, tree: bytes | None, path: bytes) -> tuple[int, bytes] | None:
        """Return the (mode, sha) at path in tree, or None."""
        return lookup(self, tree, path)


def lookup(store, tree: bytes | None, path: bytes) -> tuple[int, bytes] | None:
    """The (mode, sha) at path in tree, read through `store` (Objects, or a Staging over it), or None."""
    entry = (stat.S_IFDIR, tree) if tree else None
    for part in path.split(b"/"):
        if entry is None or not stat.S_ISDIR(entry[0]):
            return None
        node = store[entry[1]]
        entry = node[part] if part in node else None
    return entry


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


def flatten(store, tree: bytes, prefix: bytes, out: dict[bytes, State]) -> None:
    """Add every file under tree to out as {path: (mode, sha)}."""
    for name, mode, sha in store[tree].iteritems():
        if stat.S_ISDIR(mode):
            flatten(store, sha, prefix + name + b"/", out)
        else:
            out[prefix + name] = (mode, sha)


class Staging:
    """A view of the objects where new ones stay in memory until flush().

    Everything a commit needs is built here first, so the gate can refuse it before a single
    object reaches the disk; then the objects are written together, as one pack.
    """

    def __init__(self, objects: Objects):
        self._objects = objects
        self._new: dict[bytes, ShaFile] = {}

    def __getitem__(self, sha: bytes) -> ShaFile:
        obj = self._new.get(sha)
        if obj is None:
            obj = self._objects[sha]
        return obj.copy() if isinstance(obj, Tree) else obj  # commit_tree_changes edits trees

    def __contains__(self, sha: bytes) -> bool:
        return sha in self._new or sha in self._objects

    def add_object(self, obj: ShaFile) -> None:
        self._new[obj.id] = obj

    def flush(self) -> None:
        self._objects.write(list(self._new.values()))
