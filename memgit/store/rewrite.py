"""History rewritten in the object store (`memgit purge`): secret values replaced by
`[REDACTED:<kind>]`, or files dropped, in every blob, file name, commit message and trailer reachable
from the refs; every other byte, the authors and the dates kept. A message naming a rewritten commit
(Memgit-Through, Memgit-Reverts, git's "This reverts commit ...") names its new id.

`History` is pure over a store: it reads objects and collects the new ones with the old -> new commit
map. The caller writes every new object first and moves the refs last, so a crash in between leaves
the old history whole; `prune` then drops what nothing reaches any more, packs included.
"""

from __future__ import annotations

import os
import re
import stat
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

from dulwich.objects import Blob, Commit, ShaFile, Tag, Tree

from memgit.store.packs import write_pack

_SHA = re.compile(rb"\b[0-9a-f]{40}\b")
DROPPED = "file"  # the kind counted for a file dropped whole (`memgit purge --path`)


class History:
    """One rewrite: `values` ({secret bytes: kind}) replaced everywhere, `drop` (paths) removed."""

    def __init__(self, store, values: Mapping[bytes, str], drop: Iterable[bytes] = ()):
        self.store = store
        self.values = dict(values)
        longest_first = sorted(self.values, key=len, reverse=True)
        self._pattern = re.compile(b"|".join(re.escape(v) for v in longest_first)) if longest_first else None
        self.drop = frozenset(drop)
        self.new: dict[bytes, ShaFile] = {}  # in creation order: a tree after its blobs, a commit after its parents
        self.commits: dict[bytes, bytes] = {}  # old -> new, for the commits that changed
        self.counts: dict[bytes, Counter] = {}  # a changed place (blob, name, message, dropped path) -> {kind: n}
        self._blobs: dict[bytes, bytes] = {}
        self._trees: dict[object, tuple[bytes | None, frozenset]] = {}
        self._changed: dict[bytes, frozenset] = {}  # old commit -> the places it holds that changed

    def text(self, data: bytes) -> tuple[bytes, Counter]:
        """data with every value replaced, and how many of each kind."""
        counts: Counter = Counter()
        if self._pattern is None:
            return data, counts

        def sub(m: re.Match) -> bytes:
            kind = self.values[m.group()]
            counts[kind] += 1
            return b"[REDACTED:" + kind.encode() + b"]"

        return self._pattern.sub(sub, data), counts

    def run(self, heads: Iterable[bytes]) -> None:
        """Rewrite every commit reachable from heads (parents first)."""
        for sha in _topological(self.store, heads):
            self._commit(sha)

    def places(self, head: bytes) -> Counter:
        """{kind: count} of what changed in the history of `head` (each place counted once)."""
        seen: set[bytes] = set()
        for sha in _reachable_commits(self.store, [head]):
            seen |= self._changed.get(sha, frozenset())
        total: Counter = Counter()
        for place in seen:
            total += self.counts[place]
        return total

    def write(self) -> None:
        """Write the new objects as one pack (fsynced and in place before any ref names them)."""
        write_pack(self.store, list(self.new.values()))

    # -- internals ---------------------------------------------------------------------------

    def _commit(self, sha: bytes) -> None:
        c = self.store[sha]
        parents = [self.commits.get(p, p) for p in c.parents]
        tree, changed = self._tree(c.tree, b"")
        if tree is None:  # every file dropped: git keeps an empty tree
            empty = Tree()
            self.new.setdefault(empty.id, empty)
            tree = empty.id
        message, counts = self.text(c.message)
        message = _SHA.sub(lambda m: self.commits.get(m.group(), m.group()), message)
        if counts:
            self.counts[b"message:" + sha] = counts
            changed |= {b"message:" + sha}
        self._changed[sha] = changed
        if parents == c.parents and tree == c.tree and message == c.message:
            return
        new = c.copy()
        new.parents, new.tree, new.message = parents, tree, message
        new.gpgsig = None  # a signature over the old bytes would no longer hold
        self.new[new.id] = new
        self.commits[sha] = new.id

    def _tree(self, sha: bytes, prefix: bytes) -> tuple[bytes | None, frozenset]:
        """(new id or None when nothing is left, the places changed in it)."""
        key = (sha, prefix) if self.drop else sha  # which paths drop depends on where a tree sits
        if key in self._trees:
            return self._trees[key]
        out, changed, dirty = Tree(), set(), False
        entries = list(self.store[sha].iteritems())
        for name, mode, child in entries:
            path = prefix + name
            if path in self.drop:
                self.counts[b"drop:" + path] = Counter({DROPPED: 1})
                changed.add(b"drop:" + path)
                dirty = True
                continue
            new_name, counts = self.text(name)
            if counts:
                self.counts[b"name:" + sha + b"/" + name] = counts
                changed.add(b"name:" + sha + b"/" + name)
                dirty = True
            if stat.S_ISDIR(mode):
                new_child, below = self._tree(child, path + b"/")
                changed |= below
                if new_child is None:
                    dirty = True
                    continue
            elif stat.S_ISREG(mode) or stat.S_ISLNK(mode):
                new_child = self._blob(child)
                if new_child != child:
                    changed.add(child)
            else:  # a submodule's commit lives in another repository
                new_child = child
            dirty |= new_child != child
            out.add(new_name, mode, new_child)
        if not dirty:
            result = (sha, frozenset(changed))
        elif not out.items() and entries:
            result = (None, frozenset(changed))
        else:
            self.new.setdefault(out.id, out)
            result = (out.id, frozenset(changed))
        self._trees[key] = result
        return result

    def _blob(self, sha: bytes) -> bytes:
        if sha not in self._blobs:
            data = self.store[sha].data
            new, counts = self.text(data)
            if new == data:
                self._blobs[sha] = sha
            else:
                blob = Blob.from_string(new)
                self.new.setdefault(blob.id, blob)
                self.counts[sha] = counts
                self._blobs[sha] = blob.id
        return self._blobs[sha]


def _topological(store, heads: Iterable[bytes]) -> list[bytes]:
    """Every commit reachable from heads, each after all of its parents."""
    order, seen = [], set()
    stack = [(h, False) for h in heads]
    while stack:
        sha, done = stack.pop()
        if done:
            order.append(sha)
            continue
        if sha in seen:
            continue
        seen.add(sha)
        stack.append((sha, True))
        stack.extend((p, False) for p in store[sha].parents if p not in seen)
    return order


def _reachable_commits(store, heads: Iterable[bytes]) -> set[bytes]:
    seen, stack = set(), list(heads)
    while stack:
        sha = stack.pop()
        if sha not in seen:
            seen.add(sha)
            stack.extend(store[sha].parents)
    return seen


def reachable(store, roots: Iterable[bytes]) -> set[bytes]:
    """Every object reachable from roots (commits, tags, trees, blobs); a missing one is skipped."""
    seen: set[bytes] = set()
    stack = list(roots)
    while stack:
        sha = stack.pop()
        if sha in seen:
            continue
        try:
            obj = store[sha]
        except KeyError:
            continue
        seen.add(sha)
        if isinstance(obj, Commit):
            stack.append(obj.tree)
            stack.extend(obj.parents)
        elif isinstance(obj, Tree):
            for _, mode, child in obj.iteritems():
                if mode & 0o170000 != 0o160000:  # a submodule: another repository's commit
                    stack.append(child)
        elif isinstance(obj, Tag):
            stack.append(obj.object[1])
    return seen


def prune(store, keep: set[bytes]) -> int:
    """Delete every object not in `keep`, loose or packed (the packs are rewritten without them,
    the new pack written before an old one goes). Returns how many were deleted."""
    unreachable = {sha for sha in store if sha not in keep}
    if unreachable:
        store.repack(exclude=unreachable)
    return len(unreachable)


def expire_reflogs(git_dir: Path) -> None:
    """Empty every reflog (as `git reflog expire --expire=now --all`): their lines name old commits."""
    logs = git_dir / "logs"
    for path in sorted(logs.rglob("*")) if logs.is_dir() else []:
        if path.is_file():
            path.write_bytes(b"")
    for name in ("ORIG_HEAD", "FETCH_HEAD"):  # left by a person's own git, naming old commits
        try:
            os.unlink(git_dir / name)
        except FileNotFoundError:
            pass


# -- on a MemoryRepo -------------------------------------------------------------------------------


class Planned:
    """A rewrite of every ref's history computed in memory: nothing is written yet."""

    def __init__(self, repo, values: Mapping[bytes, str], drop: Iterable[bytes] = ()):
        raw = repo._repo
        self.refs = {name: sha for name, sha in raw.refs.as_dict().items()
                     if name.startswith(b"refs/") and isinstance(raw.object_store[sha], Commit)}
        self.history = History(raw.object_store, values, drop)
        self.history.run(sorted(set(self.refs.values())))

    def branches(self) -> dict[str, dict]:
        """{branch: {"commits": commits rewritten in its history, "places": {kind: n}}} of each branch that moves."""
        out = {}
        for name, old in sorted(self.refs.items()):
            if name.startswith(b"refs/heads/") and old in self.history.commits:
                commits = _reachable_commits(self.history.store, [old])
                out[name[len(b"refs/heads/"):].decode()] = {
                    "commits": sum(1 for c in commits if c in self.history.commits),
                    "places": dict(self.history.places(old))}
        return out

    def remote_refs(self) -> dict[str, str]:
        """{remote/branch: its head before the rewrite} of each remote-tracking ref that moves."""
        prefix = b"refs/remotes/"
        return {name[len(prefix):].decode(): old.decode() for name, old in sorted(self.refs.items())
                if name.startswith(prefix) and old in self.history.commits}

    def apply(self, repo, messages: Mapping[str, str]) -> dict[str, tuple[str, str]]:
        """Write the new objects and, on each branch that moves, an empty commit with its message from
        `messages` ({branch: message}, through the gate); then move each ref by compare-and-swap (a
        branch through the store's own publish, so the checked-out worktree follows). A crash at any
        point leaves every ref on a whole history: the old one, or the new one with its purge commit.
        Returns {branch: (old head, new head)}.

        Raises:
            ConflictError: a ref moved since the plan (those moved before it stay on the new history).
            SecretFound: the gate refused a message; no ref moved.
        """
        import time

        from memgit.errors import ConflictError
        from memgit.store.gate import gate_commit

        raw = repo._repo
        tops: dict[bytes, bytes] = {}
        for name, old in self.refs.items():
            if name.startswith(b"refs/heads/") and old in self.history.commits:
                branch = name[len(b"refs/heads/"):].decode()
                top = Commit()
                new = self.history.new[self.history.commits[old]]
                top.tree, top.parents = new.tree, [new.id]
                top.author = top.committer = repo.author.encode()
                top.author_time = top.commit_time = int(time.time())
                top.author_timezone = top.commit_timezone = 0
                top.message = gate_commit(repo.gate, {}, messages[branch], branch, repo.extra_patterns).encode()
                self.history.new[top.id] = top
                tops[old] = top.id
        self.history.write()
        moved: dict[str, tuple[str, str]] = {}
        for name, old in sorted(self.refs.items(), key=lambda kv: not kv[0].startswith(b"refs/heads/")):
            new = self.history.commits.get(old)
            if new is None:
                continue
            if name.startswith(b"refs/heads/"):
                branch = name[len(b"refs/heads/"):].decode()
                repo._publish(branch, old, tops[old], "purge: history rewritten")
                moved[branch] = (old.decode(), tops[old].decode())
            elif not raw.refs.set_if_equals(name, old, new, message=b"memgit: purge"):
                raise ConflictError(f"{name.decode()} moved while its history was rewritten; run `memgit purge` again")
        return moved


def drop_unreachable(repo) -> int:
    """Expire the reflogs and delete every object no ref, HEAD or index entry reaches."""
    raw = repo._repo
    expire_reflogs(repo.git_dir)
    roots = set(raw.refs.as_dict().values())
    if repo._worktree is not None:
        index = repo._worktree.read_index()
        for name in index.names:
            entry = index.get(name)
            if isinstance(entry, tuple):
                roots.add(entry[1])
    return prune(raw.object_store, reachable(raw.object_store, roots))

