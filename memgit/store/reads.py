"""Reading the memory repository: refs, files and trees at any revision, and history.

MemoryRepo (repo.py) is built from this class, commits.py and edits.py; the state they share
is set by MemoryRepo.__init__ and declared below.
"""

from __future__ import annotations

import re
import stat
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path

from dulwich.errors import RefFormatError
from dulwich.object_store import iter_tree_contents
from dulwich.objects import Commit
from dulwich.refs import check_ref_format
from dulwich.repo import Repo

from memgit.core.ledger import CommitInfo
from memgit.core.vocab import MAIN
from memgit.errors import MemgitError
from memgit.store.batch import Batch
from memgit.store.gitlog import commit_info, git_log
from memgit.store.objects import Objects, StoredObject, every_object, tree_diff
from memgit.store.worktree import checked_out

_HEX40 = re.compile(r"[0-9a-f]{40}")


class RepoReads:
    """The reads of a MemoryRepo: nothing here writes to the repository but the root cache."""

    path: Path
    _repo: Repo
    _objects: Objects
    _root: str | None
    _batch: Batch | None  # commits.py: commits made and not yet published, read here as if they were

    def flush(self) -> None:
        """Publish an open batch's commits (commits.py)."""

    def _settle(self) -> None:
        """Publish an open batch's commits before a read that goes to the disk (git, dulwich's walker)."""
        if self._batch is not None and self._batch.heads:
            self.flush()

    def branches(self) -> dict[str, str]:
        found = {k.decode(): v.decode() for k, v in self._repo.refs.as_dict(b"refs/heads").items()}
        if self._batch is not None:
            found.update((branch, new.decode()) for branch, (_, new) in self._batch.heads.items())
        return found

    def objects(self) -> Iterator[StoredObject]:
        """Every object in the store, reachable or not (packs and loose), for a full scan."""
        self._settle()
        return every_object(self._repo.object_store)

    def refs(self) -> dict[str, str]:
        """Every ref (branches, tags, anything else) and where it points."""
        self._settle()
        return {k.decode("utf-8", "surrogateescape"): v.decode() for k, v in self._repo.refs.as_dict().items()}

    @property
    def git_dir(self) -> Path:
        return Path(self._repo.controldir())

    def head(self, branch: str) -> str | None:
        sha = self._head(branch)
        return sha.decode() if sha else None

    def checked_out(self) -> str | None:
        return checked_out(self._repo.refs)

    def setting(self, name: str) -> str | None:
        """The value of `memgit.<name>` in the repository's .git/config, or None."""
        try:
            return self._repo.get_config().get((b"memgit",), name.encode()).decode()
        except KeyError:
            return None

    def set_setting(self, name: str, value: str) -> None:
        """Set `memgit.<name>` in the repository's .git/config (written whole, then renamed)."""
        config = self._repo.get_config()
        config.set((b"memgit",), name.encode(), value.encode())
        config.write_to_path()

    def root(self) -> str:
        """Return the first-parent root of main: the repository's init commit."""
        if self._root is None:
            cache = Path(self._repo.controldir()) / "memgit" / "root"  # walking 10k commits: ~1 s
            try:
                cached = cache.read_text().strip().encode()
                if not self._objects[cached].parents:
                    self._root = cached.decode()
                    return self._root
            except (OSError, KeyError, AttributeError):
                pass
            last = None
            for last in self.walk(MAIN):
                pass
            if last is None:
                raise MemgitError(f"{self.path} has no branch `main`; is it a memgit repository?")
            self._root = last.sha
            cache.parent.mkdir(exist_ok=True)
            cache.write_text(self._root + "\n")
        return self._root

    def resolve(self, rev: str) -> str | None:
        """Return the commit a branch name, full ref, HEAD or (abbreviated) sha names, or None."""
        sha = self._resolve(rev)
        return sha.decode() if sha else None

    def read(self, rev: str, path: str) -> bytes | None:
        """Return a file's content at rev, or None if the file (or the rev) does not exist."""
        entry = self._lookup(rev, path)
        return self._objects[entry[1]].data if _is_file(entry) else None

    def exists(self, rev: str, path: str) -> bool:
        """Tell whether a file exists at rev."""
        return _is_file(self._lookup(rev, path))

    def exists_at(self, rev: str) -> Callable[[str], bool]:
        """`exists` for many paths at one rev: the rev is resolved once (each resolution looks for a
        branch of that name on the disk first: a summary's hundreds of links paid it each)."""
        sha = self._resolve(rev)
        tree = self._objects[sha].tree if sha is not None else None
        return lambda path: tree is not None and _is_file(self._objects.lookup(tree, path.strip("/").encode()))

    def list(self, rev: str, prefix: str = "") -> list[str]:
        """Return the file paths under directory prefix ("" for all) at rev, sorted."""
        sha = self._resolve(rev)
        if sha is None:
            return []
        prefix = prefix.strip("/")
        tree = self._objects[sha].tree
        entry = self._objects.lookup(tree, prefix.encode()) if prefix else (stat.S_IFDIR, tree)
        if entry is None:
            return []
        if not stat.S_ISDIR(entry[0]):
            return [prefix]
        base = prefix.encode() + b"/" if prefix else b""
        return sorted((base + e.path).decode() for e in iter_tree_contents(self._objects, entry[1]))

    def tree_id(self, rev: str, prefix: str) -> str | None:
        """The id of the directory `prefix` at rev, or None when there is no such directory."""
        entry = self._lookup(rev, prefix)
        return entry[1].decode() if entry and stat.S_ISDIR(entry[0]) else None

    def blobs(self, rev: str, prefix: str) -> dict[str, str]:
        """The files under directory `prefix` at rev, each with the id of its content."""
        entry = self._lookup(rev, prefix)
        if entry is None or not stat.S_ISDIR(entry[0]):
            return {}
        base = prefix.strip("/").encode() + b"/"
        return {(base + e.path).decode(): e.sha.decode() for e in iter_tree_contents(self._objects, entry[1])
                if stat.S_ISREG(e.mode)}

    def tree_changes(self, old: str | None, new: str | None, prefix: str) -> dict[str, str | None] | None:
        """The files that differ between two trees (ids, as `tree_id` gives them) of directory
        `prefix`: path -> its new content's id, or None when it is gone. None when `old` is not in
        the repository any more (a gc after a history rewrite): the caller then lists `new` whole."""
        try:
            if old is not None:
                self._objects[old.encode()]
        except KeyError:
            return None
        base = prefix.strip("/").encode() + b"/"
        return {(base + path).decode(): (after[1].decode() if after and stat.S_ISREG(after[0]) else None)
                for path, _, after in tree_diff(self._objects, old.encode() if old else None,
                                                new.encode() if new else None)}

    def read_blob(self, blob_id: str) -> bytes:
        return self._objects[blob_id.encode()].data

    def walk(
        self, branch_or_sha: str, *, stop_at: str | None = None, limit: int | None = None
    ) -> Iterator[CommitInfo]:
        """Yield first-parent history, newest first, stopping before stop_at."""
        sha = self._resolve(branch_or_sha)  # an open batch's head, if it moved the branch
        stop = (self._resolve(stop_at) or stop_at.encode()) if stop_at else None
        count = 0
        while sha is not None and sha != stop and (limit is None or count < limit):
            c = self._commit_at(sha)
            yield commit_info(c)
            count += 1
            sha = c.parents[0] if c.parents else None

    def history(self, head: str, *, exclude: str | None = None) -> Iterator[CommitInfo]:
        """Yield every commit reachable from head and not from exclude, children before parents.

        Unlike walk(), this follows every parent: commits merged from another machine count.
        With git on PATH it is read by `git log` (10k commits in ~0.15 s, where dulwich takes
        ~1.5 s: the ledger is read cold after its cache is deleted); else through dulwich.
        """
        self._settle()
        start = self._resolve(head)
        stop = self._resolve(exclude) if exclude else None
        if start is None:
            return
        logged = git_log(self._repo.controldir(), start, stop) if self.fast_log else None
        if logged is not None:
            yield from logged
            return
        for entry in self._repo.get_walker(include=[start], exclude=[stop] if stop else []):
            yield commit_info(entry.commit)

    fast_log = True  # tests turn it off to compare both paths

    def since(self, ts: int) -> Iterator[CommitInfo]:
        """Every commit on any branch made at or after `ts` (each once): the day's spend is read from them.

        Parents are followed until a commit older than `ts`; its ancestors are not read (a commit
        made where the clock ran behind may hide a few: the budget reads a day, not the ledger).
        """
        seen: set[bytes] = set()
        queue = deque(sha for b in self.branches() if (sha := self._head(b)) is not None)
        while queue:
            sha = queue.popleft()
            if sha in seen:
                continue
            seen.add(sha)
            try:
                c = self._repo.object_store[sha]
            except KeyError:
                continue
            if c.commit_time < ts:
                continue
            yield commit_info(c)
            queue.extend(c.parents)

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        """Tell whether ancestor is reachable from descendant (a fast-forward is possible).

        Parents are walked breadth first from descendant, never pruned by date (dulwich's
        can_fast_forward skips commits older than `ancestor`): two machines' clocks disagree, and
        a commit made where the clock ran behind would hide its ancestors. The usual question, is
        the last head seen a few commits below this one, is answered in a few reads.
        """
        a, d = self._resolve(ancestor), self._resolve(descendant)
        if a is None or d is None:
            return False
        seen, queue = {d}, deque([d])
        while queue:
            sha = queue.popleft()
            if sha == a:
                return True
            try:
                parents = self._commit_at(sha).parents
            except KeyError:  # a parent missing from the store cannot lead anywhere
                continue
            queue.extend(p for p in parents if p not in seen and not seen.add(p))
        return False

    def changed_paths(self, sha: str) -> list[str]:
        """Return the paths a commit changed against its first parent, sorted."""
        c = self._commit_obj(sha)
        parent = self._objects[c.parents[0]].tree if c.parents else None
        return sorted({p.decode() for p, _, _ in tree_diff(self._objects, parent, c.tree)})

    # -- internals ---------------------------------------------------------------------------

    def _commit_at(self, sha: bytes) -> Commit:
        """A commit for a walk through history: an open batch's own (not on the disk yet) or the store's.

        Walks read the batch rather than publish it first: consolidation walks each branch's history
        after its commit, and publishing there cost a pack and its fsyncs per branch. Not kept (see
        Objects.keep): a long walk would evict the trees.
        """
        pending = self._objects.pending
        found = pending.get(sha) if pending else None
        return found if found is not None else self._repo.object_store[sha]

    def _head(self, branch: str) -> bytes | None:
        if self._batch is not None and branch in self._batch.heads:
            return self._batch.heads[branch][1]
        try:
            return self._repo.refs[b"refs/heads/" + branch.encode()]
        except (KeyError, RefFormatError):
            return None

    def _resolve(self, rev: str) -> bytes | None:
        if self._batch is not None and self._batch.heads:
            pending = self._batch.heads.get(rev.removeprefix("refs/heads/"))
            if pending:
                return pending[1]
            if rev == "HEAD" or re.fullmatch(r"[0-9a-fA-F]{4,39}", rev):
                self._settle()  # HEAD may name a pending branch; a prefix is looked up on the disk
        refs = self._repo.refs
        for name in (b"refs/heads/" + rev.encode(), rev.encode()):
            if name == b"HEAD" or name.startswith(b"refs/") and check_ref_format(name[5:]):
                try:
                    return refs[name]
                except KeyError:
                    pass
        rev = rev.lower()
        if _HEX40.fullmatch(rev):
            sha = rev.encode()
        elif 4 <= len(rev) < 40 and re.fullmatch(r"[0-9a-f]+", rev):
            found = list(self._repo.object_store.iter_prefix(rev.encode()))
            sha = found[0] if len(found) == 1 else None
        else:
            return None
        try:
            return sha if sha and isinstance(self._objects[sha], Commit) else None
        except KeyError:
            return None

    def _commit_obj(self, sha: str) -> Commit:
        resolved = self._resolve(sha)
        if resolved is None:
            raise MemgitError(f"no commit {sha} in {self.path}")
        return self._objects[resolved]

    def _lookup(self, rev: str, path: str) -> tuple[int, bytes] | None:
        sha = self._resolve(rev)
        if sha is None:
            return None
        return self._objects.lookup(self._objects[sha].tree, path.strip("/").encode())


def _is_file(entry: tuple[int, bytes] | None) -> bool:
    """A tree entry that is a file (or a link), not a folder nor a submodule."""
    return entry is not None and (stat.S_ISREG(entry[0]) or stat.S_ISLNK(entry[0]))
