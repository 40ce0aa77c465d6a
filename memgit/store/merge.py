"""Joining branches in the object store (DESIGN §3, §5b): whole trees read, merge bases found, merge
commits made through the gate like every commit, and branches created, fast-forwarded, renamed
and deleted by compare-and-swap.

Which file of which side a joined tree holds is memgit.core.join's to decide; this module only
reads and writes. When the checked-out branch is moved, its worktree follows (worktree.py): like
`git merge --ff-only`, never over a person's unrecorded edit (the caller records them first).
"""

from __future__ import annotations

import stat
from collections.abc import Mapping

from dulwich.file import FileLocked
from dulwich.refs import check_ref_format

from memgit.errors import ConflictError, MemgitError
from memgit.store.commits import _clear_stale_lock
from memgit.store.edits import RepoEdits
from memgit.store.objects import State, flatten

_HEADS = b"refs/heads/"


class RepoMerges(RepoEdits):
    """The joins of a MemoryRepo: merge commits and branch moves."""

    def files(self, rev: str) -> dict[str, str]:
        """Every file at rev (regular files and symlinks): {path: blob id}; {} when rev is unknown."""
        sha = self._resolve(rev)
        if sha is None:
            return {}
        found: dict[bytes, State] = {}
        flatten(self._objects, self._objects[sha].tree, b"", found)
        return {path.decode("utf-8", "surrogateescape"): blob.decode() for path, (mode, blob) in found.items()
                if stat.S_ISREG(mode) or stat.S_ISLNK(mode)}

    def merge_base(self, ours: str, theirs: str) -> str | None:
        """The newest common ancestor of two commits, None when their histories are unrelated.

        Of several (a criss-cross), the first dulwich finds: the join rules compare files, so any
        common ancestor gives the same verdict wherever the two sides agree.
        """
        from dulwich.graph import find_merge_base

        self._settle()
        a, b = self._resolve(ours), self._resolve(theirs)
        if a is None or b is None:
            raise MemgitError(f"no commit {ours if a is None else theirs} in {self.path}")
        bases = find_merge_base(self._repo, [a, b])
        return bases[0].decode() if bases else None

    def merge(self, branch: str, theirs: str, changes: Mapping[str, bytes | None], message: str, *,
              expected: str) -> str:
        """Commit {path: content or None to delete} on top of branch with `theirs` as second parent.

        The files taken from theirs pass the gate like those of any commit. Returns the new head.

        Raises:
            ConflictError: the branch moved since `expected`; nothing was written.
            SecretFound: the gate refused a file or the message; nothing was written.
            MemgitError: the branch or `theirs` does not exist.
        """
        head = self._head(branch)
        other = self._resolve(theirs)
        if head is None or other is None:
            raise MemgitError(f"cannot merge {theirs} into {branch}: no such {'branch' if head is None else 'commit'}")
        if head != expected.encode():
            raise ConflictError(f"branch {branch} moved (expected {expected}, found {head.decode()}); retry")
        encoded = {p.encode(): None if d is None else (None, d) for p, d in changes.items()}
        return self._commit(branch, encoded, message, parent=head, base=head, allow_empty=True, merged=other)

    def fast_forward(self, branch: str, new: str, *, expected: str) -> None:
        """Move branch from `expected` to its descendant `new` (the worktree follows when checked out).

        Raises:
            ConflictError: the branch moved since `expected`.
            MemgitError: `new` does not descend from `expected`.
        """
        if not self.is_ancestor(expected, new):
            raise MemgitError(f"cannot fast-forward {branch} to {new[:12]}: it does not contain {expected[:12]}")
        self._publish(branch, expected.encode(), new.encode(), f"fast-forward to {new}")

    def create_branch(self, branch: str, sha: str) -> None:
        """Create branch at commit sha.

        Raises:
            ConflictError: the branch exists already.
            MemgitError: the name is not a valid branch name, or sha is no commit here.
        """
        if not check_ref_format(_HEADS[5:] + branch.encode()):
            raise MemgitError(f"{branch!r} is not a valid branch name")
        resolved = self._resolve(sha)
        if resolved is None:
            raise MemgitError(f"cannot create {branch}: no commit {sha} in {self.path}")
        self._publish(branch, None, resolved, f"branch: created at {sha}")

    def rename_branch(self, old: str, new: str, *, expected: str) -> None:
        """Give branch `old` (at `expected`) the name `new`, which must be free; HEAD follows it.

        Raises:
            ConflictError: `new` exists, or `old` moved since `expected`.
        """
        self.create_branch(new, expected)
        with self._worktree_lock():
            if self.checked_out() == old:
                self._point_head(new, f"rename {old} to {new}")
            self._remove(old, expected)

    def delete_branch(self, branch: str, *, expected: str, into: str | None = None) -> None:
        """Delete branch (at `expected`). When it is checked out, the worktree and HEAD move to `into`
        first (its changes applied like a fast-forward, never over an unrecorded edit).

        Raises:
            ConflictError: the branch moved since `expected`.
            MemgitError: the branch is checked out and `into` is not given or does not exist.
        """
        with self._worktree_lock():
            if self.checked_out() == branch:
                target = self._head(into) if into else None
                if target is None:
                    raise MemgitError(f"{branch} is checked out; switch to another branch to delete it")
                self._publish(branch, expected.encode(), target, f"moving to {into} before deletion")
                self._point_head(into, f"{branch} joined into {into}")
                expected = target.decode()
            self._remove(branch, expected)

    # -- internals ---------------------------------------------------------------------------

    def _worktree_lock(self):
        from contextlib import nullcontext

        return self._worktree.locked() if self._worktree is not None else nullcontext()

    def _point_head(self, branch: str, why: str) -> None:
        self._repo.refs.set_symbolic_ref(b"HEAD", _HEADS + branch.encode(), committer=self.author.encode(),
                                         message=b"memgit: " + why.encode())

    def _remove(self, branch: str, expected: str) -> None:
        ref = _HEADS + branch.encode()
        try:
            removed = self._repo.refs.remove_if_equals(ref, expected.encode(), committer=self.author.encode(),
                                                       message=b"memgit: deleted")
        except FileLocked as e:
            _clear_stale_lock(e.lockfilename)
            removed = False
        if not removed:
            raise ConflictError(f"branch {branch} moved while it was being deleted; retry")
