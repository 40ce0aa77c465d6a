"""Committing to the memory repository: build a commit in the object store, pass it through the
gate, write it, and publish it by compare-and-swap of its branch (retrying a lost race).

When the branch written is the checked-out one, the worktree follows (worktree.py, DESIGN §3).
Inside `batch()` commits are published together: their objects as one pack, fsynced once, then
each branch moved once; reads through this repository see them at once.
"""

from __future__ import annotations

import os
import random
import stat
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from types import EllipsisType

from dulwich.file import FileLocked
from dulwich.object_store import commit_tree_changes
from dulwich.objects import Blob, Commit, Tree
from dulwich.refs import check_ref_format

from memgit.errors import ConflictError, MemgitError
from memgit.store.batch import BATCH_COMMITS, BATCH_SECONDS, Batch, Changes, Made
from memgit.store.gate import Gate, gate_commit
from memgit.store.objects import Staging, tree_diff
from memgit.store.reads import RepoReads
from memgit.store.worktree import Worktree

_FILE = stat.S_IFREG | 0o644
_STALE_LOCK = 2.0  # seconds: live writers hold a ref or object lock for milliseconds


class RepoCommits(RepoReads):
    """The writes of a MemoryRepo: every one goes through _commit, hence through the gate."""

    author: str
    gate: Gate
    extra_patterns: Sequence[str]
    _worktree: Worktree | None

    @contextmanager
    def batch(self, *, size: int = BATCH_COMMITS, seconds: float = BATCH_SECONDS) -> Iterator[None]:
        """Publish the commits made inside together: their objects as one pack fsynced once, then each
        branch moved once by compare-and-swap (the worktree following). This repository's reads see
        them at once; other processes when the batch is flushed: every `size` commits or `seconds`,
        at a read that goes to the disk (history, `git log`), and at the end, an exception's too.

        A kill -9 loses the commits not yet flushed, never leaves half of one: the sessions they
        recorded stay pending and the next sync makes them again. For commits whose content does not
        depend on the rest of their branch (a session's note, a ledger commit): when another process
        moved a branch meanwhile, they are made again on top of it.
        """
        if self._batch is not None:
            yield
            return
        self._batch = Batch(size, seconds)
        self._objects.pending = {}
        try:
            yield
        finally:
            try:
                self.flush()
            finally:
                self._batch = None
                self._objects.pending = None

    def flush(self) -> None:
        """Publish the open batch's commits: one pack, fsynced, then each branch moved once."""
        batch = self._batch
        if batch is None or not batch.heads:
            return
        self._batch = None  # the moves, and commits made again, go straight to the disk
        try:
            self._objects.write_pending()
            self._objects.pending = None
            for branch, (old, new) in batch.heads.items():
                made = batch.made[branch]
                subject = made[-1].message.split("\n", 1)[0]
                if len(made) > 1:
                    subject = f"{len(made)} commits, the last: {subject}"
                self._move_or_remake(branch, old, new, subject, made)
        finally:
            self._objects.pending = {}
            batch.heads.clear()
            batch.made.clear()
            self._batch = batch

    def _move_or_remake(self, branch: str, old: bytes | None, new: bytes, subject: str, made: list[Made]) -> None:
        """Move branch from old to new; when another process moved it meanwhile, make the commits again."""
        patience = time.monotonic() + _STALE_LOCK + 2  # a ref lock a killed writer left clears after _STALE_LOCK
        attempt = 0
        while True:
            try:
                self._move(branch, old, new, subject)
                return
            except ConflictError as e:
                if self._head(branch) != old:
                    break
                attempt = _wait_or_raise(e, attempt, patience)
        for m in made:
            attempt = 0
            while True:
                head = self._head(branch)
                try:
                    if m.changes is None:
                        if head is None:
                            self._move(branch, None, m.base, "branch: created from " + m.base.decode())
                    else:
                        self._commit(branch, m.changes, m.message, parent=head, base=head or m.base,
                                     allow_empty=m.allow_empty, merged=m.merged, author_time=m.author_time)
                    break
                except ConflictError as e:
                    attempt = _wait_or_raise(e, attempt, patience)

    def commit(
        self,
        branch: str,
        changes: Mapping[str, bytes | None],
        message: str,
        *,
        expected: str | None | EllipsisType = ...,
        create_from: str | None = None,
        allow_empty: bool = False,
        author_time: int | None = None,
    ) -> str:
        """Commit {path: content or None to delete} on top of branch; return the new head.

        Args:
            expected: the head the caller based its work on (default: the current head;
                None: the branch must not exist yet).
            create_from: fork a missing branch from this commit or branch.
            allow_empty: commit even when nothing changes (ledger commits); otherwise such a
                commit writes nothing and returns the current head.
            author_time: the author date (seconds since the epoch): when what the commit records
                happened, a session's end; the committer date is always now.

        Raises:
            ConflictError: the branch moved (or appeared) meanwhile; rebuild and retry.
            SecretFound: the gate refused a file or the message; nothing was written.
            MemgitError: the branch does not exist and create_from was not given; or, for
                the checked-out branch, git holds .git/index.lock or the index is corrupt.
        """
        if not check_ref_format(b"heads/" + branch.encode()):
            raise MemgitError(f"{branch!r} is not a valid branch name")
        current = self._head(branch)
        parent = current if expected is ... else (expected.encode() if expected else None)
        if parent != current:
            found = current.decode() if current else None
            raise ConflictError(f"branch {branch} moved (expected {expected}, found {found}); retry")
        base = parent
        if parent is None:
            if create_from is None:
                raise MemgitError(f"branch {branch} does not exist; pass create_from= to fork it")
            base = self._resolve(create_from)
            if base is None:
                raise MemgitError(f"cannot fork {branch} from {create_from}: no such commit")
        encoded = {p.encode(): None if d is None else (None, d) for p, d in changes.items()}
        return self._commit(
            branch, encoded, message, parent=parent, base=base, allow_empty=allow_empty, author_time=author_time
        )

    def commit_with_retry(
        self,
        branch: str,
        build: Callable[[str | None], tuple[Mapping[str, bytes | None], str]],
        *,
        create_from: str | None = None,
        allow_empty: bool = False,
        attempts: int = 20,
        author_time: int | None = None,
    ) -> str:
        """Commit build(head)'s (changes, message), rebuilding from the fresh head on a race.

        Raises:
            ConflictError: still losing the race after `attempts` tries and longer than a stale
                lock takes to clear (a ref lock left by a killed writer is removed after
                _STALE_LOCK seconds, so a run right after a crash waits for it, not fails).
        """
        patience = time.monotonic() + _STALE_LOCK + 2
        attempt = 0
        while True:
            head = self.head(branch)
            changes, message = build(head)
            try:
                return self.commit(
                    branch, changes, message, expected=head,
                    create_from=create_from, allow_empty=allow_empty, author_time=author_time,
                )  # fmt: skip
            except ConflictError:
                attempt += 1
                if attempt >= attempts and time.monotonic() > patience:
                    raise
                time.sleep(random.uniform(0.5, 1.5) * min(0.001 * 2**attempt, 0.05))

    def revert(self, branch: str, sha: str, message: str) -> str:
        """Commit the inverse of commit sha on top of branch (3-way, in the object store).

        Raises:
            ConflictError: later commits changed the same lines; lists the paths.
            MemgitError: sha is a root or merge commit, or the branch does not exist.
        """
        from dulwich.merge import Merger  # needs merge3; ~60 ms to import, off the hot path

        head = self._head(branch)
        if head is None:
            raise MemgitError(f"branch {branch} does not exist")
        target = self._commit_obj(sha)
        if len(target.parents) != 1:
            kind = "the root commit" if not target.parents else "a merge commit"
            raise MemgitError(f"{sha[:12]} is {kind}; memgit cannot revert it")
        store = Staging(self._objects)
        head_tree = self._objects[head].tree
        merged, conflicts = Merger(store).merge_trees(
            store[target.tree], store[head_tree], store[self._objects[target.parents[0]].tree]
        )
        if conflicts:
            paths = ", ".join(sorted(p.decode() for p in conflicts))
            raise ConflictError(
                f"reverting {sha[:12]} conflicts with later changes to: {paths}; "
                "edit those files by hand instead"
            )
        store.add_object(merged)
        changes: Changes = {
            path: new and (new[0], store[new[1]].data)
            for path, _, new in tree_diff(store, head_tree, merged.id)
        }
        return self._commit(branch, changes, message, parent=head, base=head, allow_empty=True)

    def _commit(
        self, branch: str, changes: Changes, message: str, *,
        parent: bytes | None, base: bytes | None, allow_empty: bool, merged: bytes | None = None,
        author_time: int | None = None,
    ) -> str:  # fmt: skip
        """Build, gate, write and publish one commit whose first parent is `base` (and second
        `merged`: a merge commit, made even when the tree does not change). Its author date is
        `author_time` when given (when what it records happened), its committer date now."""
        base_tree = self._objects[base].tree if base else None
        staging = Staging(self._objects)
        edits, gated = [], {}
        for path, change in sorted(changes.items()):
            current = self._objects.lookup(base_tree, path)
            if change is None:
                if current is not None:
                    edits.append((path, None, None))
                continue
            mode, data = change
            if mode is None:
                mode = current[0] if current and current[0] in (_FILE, 0o100755) else _FILE
            blob = Blob.from_string(data)
            if current != (mode, blob.id):
                staging.add_object(blob)
                edits.append((path, mode, blob.id))
                gated[os.fsdecode(path)] = data
        if not edits and not allow_empty and merged is None:
            if parent is None and base is not None:  # a fork without changes: just the branch
                if self._batch is not None:
                    self._batch.add(branch, None, base, Made(None, "", base, False, None, None))
                else:
                    self._publish(branch, None, base, f"branch: created from {base.decode()}")
            return (base or b"").decode()
        message = gate_commit(self.gate, gated, message, branch, self.extra_patterns)
        tree_id = commit_tree_changes(staging, base_tree or Tree(), edits)
        c = Commit()
        c.tree, c.parents = tree_id, ([base] if base else []) + ([merged] if merged else [])
        c.author = c.committer = self.author.encode()
        c.commit_time = int(time.time())
        c.author_time = c.commit_time if author_time is None else author_time
        c.author_timezone = c.commit_timezone = 0
        c.message = message.encode()
        staging.add_object(c)
        staging.flush()
        if self._batch is not None:
            self._batch.add(branch, parent, c.id, Made(changes, message, base, allow_empty, merged, author_time))
            if self._batch.full():
                self.flush()
        else:
            self._publish(branch, parent, c.id, message.split("\n", 1)[0])
        return c.id.decode()

    def _publish(self, branch: str, old: bytes | None, new: bytes, subject: str) -> None:
        """Move refs/heads/<branch> from old to new by compare-and-swap (worktree follows), after
        publishing an open batch's commits (`new` may name one)."""
        self._settle()
        self._move(branch, old, new, subject)

    def _move(self, branch: str, old: bytes | None, new: bytes, subject: str) -> None:
        """Move refs/heads/<branch> from old to new by compare-and-swap (worktree follows)."""
        ref = b"refs/heads/" + branch.encode()
        reflog = b"memgit: " + subject.encode()

        def cas() -> bool:
            refs, who = self._repo.refs, self.author.encode()
            try:
                if old is None:
                    return refs.add_if_new(ref, new, committer=who, message=reflog)
                return refs.set_if_equals(ref, old, new, committer=who, message=reflog)
            except FileLocked as e:  # another writer holds the ref lock right now: a lost race
                _clear_stale_lock(e.lockfilename)
                return False

        if self._worktree is not None and self.checked_out() == branch:
            moved = self._worktree.move(branch, old, new, cas)
        else:
            moved = cas()
        if not moved:
            raise ConflictError(f"branch {branch} moved while committing; retry")


def _wait_or_raise(lost: ConflictError, attempt: int, patience: float) -> int:
    """Back off before another try at a lost race; raise it once past `patience`."""
    if time.monotonic() > patience:
        raise lost
    time.sleep(random.uniform(0.5, 1.5) * min(0.001 * 2 ** (attempt + 1), 0.05))
    return attempt + 1


def _clear_stale_lock(lockfile: str | bytes) -> None:
    """Remove a ref or object lock a crashed writer left (no live writer holds one for long)."""
    try:
        if time.time() - os.stat(lockfile).st_mtime > _STALE_LOCK:
            os.unlink(lockfile)
    except FileNotFoundError:
        pass
