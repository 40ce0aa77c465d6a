"""The memory repository: read files on any branch, commit with compare-and-swap, revert.

The only module (with its helper worktree.py) that imports dulwich. It works on the object
store and refs, so any branch can be written while another is checked out; when the branch
written is the checked-out one, worktree.py moves the worktree along (DESIGN §3).
"""

from __future__ import annotations

import codecs
import fcntl
import os
import random
import re
import shutil
import stat
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from types import EllipsisType
from typing import NamedTuple

from dulwich.errors import NotGitRepository, RefFormatError
from dulwich.file import FileLocked
from dulwich.object_store import commit_tree_changes, iter_tree_contents
from dulwich.objects import Blob, Commit, ShaFile, Tree
from dulwich.refs import check_ref_format
from dulwich.repo import Repo

from memgit.core.names import safe_text
from memgit.errors import ConflictError, MemgitError, NotARepo
from memgit.core.ledger import CommitInfo
from memgit.store.worktree import Worktree, checked_out, tree_diff

Gate = Callable[[Mapping[str, bytes]], None]
DEFAULT_AUTHOR = "memgit <memgit@localhost>"
MESSAGE_KEY = "<commit message>"  # how the gate sees the commit message
REF_KEY = "<branch name>"  # and the branch the commit goes to
PATHS_KEY = "<file names>"  # and the names of the files it writes
INIT_MESSAGE = "init(main): create memory repository"
_FILE = stat.S_IFREG | 0o644
_STALE_LOCK = 2.0  # seconds: live writers hold a ref or object lock for milliseconds
_HEX40 = re.compile(r"[0-9a-f]{40}")

# {path: (mode or None to keep the current one, content) or None to delete}
_Changes = dict[bytes, tuple[int | None, bytes] | None]


_READ = 1 << 20  # bytes read from `git log` at a time


class StoredObject(NamedTuple):
    sha: str
    kind: str  # blob, commit, tree, tag
    data: bytes  # a blob's content, a commit's message, a tree's entry names (one per line)
    tree: str = ""  # of a commit
    parents: tuple[str, ...] = ()  # of a commit
    time: int = 0  # of a commit
    entries: tuple[tuple[bytes, int, str], ...] = ()  # of a tree: (name, mode, sha)


class MemoryRepo:
    """A memgit repository on disk (normally non-bare, with `main` checked out)."""

    def __init__(self, repo: Repo, *, author: str, gate: Gate | None = None, extra_patterns: Sequence[str] = ()):
        self._repo = repo
        repo.object_store.fsync_object_files = True  # dulwich reads only core.fsyncObjectFiles
        self.path = Path(repo.path)
        self.author = author
        # Every commit passes here: its message is made safe (secrets redacted, control characters
        # escaped) and the gate refuses a file, a message or a branch name that still holds a secret.
        self.extra_patterns = extra_patterns  # config.RedactPatterns also carries [redact] allow
        self.gate: Gate = gate if gate is not None else self._gate
        self._objects = _Objects(repo.object_store)
        self._worktree = None if repo.bare else Worktree(repo, self._objects)
        self._root: str | None = None
        self.refused_edits: dict[str, str] = {}  # set by record_edits

    # -- opening -----------------------------------------------------------------------------

    @classmethod
    def init(
        cls, path: Path, files: Mapping[str, bytes], *, author: str, gate: Gate | None = None,
        extra_patterns: Sequence[str] = (),
    ) -> MemoryRepo:
        """Create a repository at path with `main` checked out and one commit holding files.

        Raises:
            MemgitError: path already holds a repository, or a non-empty directory.
            SecretFound: the gate refused the files.
        """
        path = Path(path)
        if (path / ".git").exists():
            with cls.open(path) as existing:
                kind = "a memgit" if existing._is_memgit() else "a git"
            raise MemgitError(f"{path} already holds {kind} repository; use it or pick another path")
        if path.exists() and (not path.is_dir() or any(path.iterdir())):
            raise MemgitError(f"{path} exists and is not an empty directory; pick another path")
        path.mkdir(parents=True, exist_ok=True)
        repo = Repo.init(str(path), default_branch=b"main")
        config = repo.get_config()
        # Loose objects survive a power cut. Not core.fsyncObjectFiles: git >= 2.36 warns
        # about it on every command; memgit's own writes fsync regardless (see __init__).
        config.set((b"core",), b"fsync", b"loose-object")
        config.write_to_path()
        self = cls(repo, author=author, gate=gate, extra_patterns=extra_patterns)
        changes = {p.encode(): (None, data) for p, data in files.items()}
        self._commit("main", changes, INIT_MESSAGE, parent=None, base=None, allow_empty=True)
        return self

    @classmethod
    def open(
        cls, path: Path, *, author: str = DEFAULT_AUTHOR, gate: Gate | None = None,
        extra_patterns: Sequence[str] = (),
    ) -> MemoryRepo:
        """Open an existing repository, finishing a worktree update a crash interrupted.

        Raises:
            NotARepo: path is not a git repository.
        """
        try:
            repo = Repo(str(path))
        except (NotGitRepository, FileNotFoundError, NotADirectoryError) as e:
            raise NotARepo(f"{path} is not a memgit repository; create one with `memgit init`") from e
        self = cls(repo, author=author, gate=gate, extra_patterns=extra_patterns)
        if self._worktree is not None:
            try:
                self._worktree.recover(blocking=False)
            except (OSError, MemgitError):
                pass  # a busy index or a read-only disk: the next writer recovers
        return self

    def close(self) -> None:
        self._repo.close()

    def __enter__(self) -> MemoryRepo:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading -----------------------------------------------------------------------------

    def branches(self) -> dict[str, str]:
        return {k.decode(): v.decode() for k, v in self._repo.refs.as_dict(b"refs/heads").items()}

    def objects(self) -> Iterator[StoredObject]:
        """Every object in the store, reachable or not (packs and loose), for a full scan."""
        store = self._repo.object_store
        for sha in store:
            try:
                obj = store[sha]
            except (KeyError, ValueError, OSError):
                continue  # a torn loose object: `git fsck` reports it, the scan reads the rest
            if isinstance(obj, Blob):
                yield StoredObject(sha.decode(), "blob", obj.data)
            elif isinstance(obj, Commit):
                yield StoredObject(sha.decode(), "commit", obj.message, obj.tree.decode(),
                                   tuple(p.decode() for p in obj.parents), obj.commit_time)
            elif isinstance(obj, Tree):
                yield StoredObject(sha.decode(), "tree", b"\n".join(e.path for e in obj.iteritems()),
                                   entries=tuple((e.path, e.mode, e.sha.decode()) for e in obj.iteritems()))
            else:
                yield StoredObject(sha.decode(), obj.type_name.decode(), obj.as_raw_string())

    def refs(self) -> dict[str, str]:
        """Every ref (branches, tags, anything else) and where it points."""
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
            for last in self.walk("main"):
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
        if entry is None or not stat.S_ISREG(entry[0]) and not stat.S_ISLNK(entry[0]):
            return None
        return self._objects[entry[1]].data

    def exists(self, rev: str, path: str) -> bool:
        """Tell whether a file exists at rev."""
        entry = self._lookup(rev, path)
        return entry is not None and (stat.S_ISREG(entry[0]) or stat.S_ISLNK(entry[0]))

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
        sha = self._resolve(branch_or_sha)
        stop = (self._resolve(stop_at) or stop_at.encode()) if stop_at else None
        count = 0
        while sha is not None and sha != stop and (limit is None or count < limit):
            c = self._repo.object_store[sha]  # not kept: a long walk would evict the trees
            yield _info(c)
            count += 1
            sha = c.parents[0] if c.parents else None

    def history(self, head: str, *, exclude: str | None = None) -> Iterator[CommitInfo]:
        """Yield every commit reachable from head and not from exclude, children before parents.

        Unlike walk(), this follows every parent: commits merged from another machine count.
        With git on PATH it is read by `git log` (10k commits in ~0.15 s, where dulwich takes
        ~1.5 s: the ledger is read cold after its cache is deleted); else through dulwich.
        """
        start = self._resolve(head)
        stop = self._resolve(exclude) if exclude else None
        if start is None:
            return
        logged = self._git_log(start, stop) if self.fast_log else None
        if logged is not None:
            yield from logged
            return
        for entry in self._repo.get_walker(include=[start], exclude=[stop] if stop else []):
            yield _info(entry.commit)

    fast_log = True  # tests turn it off to compare both paths

    def _git_log(self, start: bytes, stop: bytes | None) -> Iterator[CommitInfo] | None:
        """The history by `git log`, streamed (the caller reads commits while git still writes
        them), or None when git cannot give it (then dulwich reads it)."""
        git = shutil.which("git")
        if git is None:
            return None
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}  # memgit may run in a git hook
        env["GIT_CONFIG_NOSYSTEM"] = "1"
        args = [git, "--no-replace-objects", "--git-dir", self._repo.controldir(), "log", "--topo-order", "-z",
                "--format=%H %ct %P%n%B", start.decode()]
        if stop:
            args.append("^" + stop.decode())
        read, write = os.pipe()
        try:
            # A pipe of 1 MB rather than 64 KB: git writes while memgit parses, instead of taking turns.
            fcntl.fcntl(write, getattr(fcntl, "F_SETPIPE_SZ", 1031), _READ)
        except (OSError, AttributeError):
            pass  # not Linux, or a lower limit: a smaller pipe only costs speed
        try:
            proc = subprocess.Popen(args, env=env, stdin=subprocess.DEVNULL, stdout=write, stderr=subprocess.DEVNULL)
        except OSError:
            os.close(read)
            return None
        finally:
            os.close(write)
        proc.stdout = os.fdopen(read, "rb", buffering=0)
        first = os.read(read, _READ)  # git failing at once (a corrupt repo) falls back
        if not first and proc.wait() != 0:
            return None
        return self._stream(proc, first)

    @staticmethod
    def _stream(proc: subprocess.Popen, first: bytes) -> Iterator[CommitInfo]:
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        pending = decoder.decode(first)
        try:
            fd = proc.stdout.fileno()
            while True:
                chunk = os.read(fd, _READ)  # large raw reads: a buffered read of a pipe costs 50% more here
                pending += decoder.decode(chunk, final=not chunk)
                records = pending.split("\0")
                pending = records.pop() if chunk else ""
                for record in records:
                    if record:
                        head, _, message = record.partition("\n")
                        sha, when, *parents = head.split(" ")
                        yield CommitInfo(sha, tuple(p for p in parents if p), message, int(when))
                if not chunk:
                    break
        finally:
            proc.stdout.close()
            if proc.wait() != 0:
                raise MemgitError("`git log` failed while reading the memory repository's history; "
                                  "run `git fsck` in it")

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        """Tell whether ancestor is reachable from descendant (a fast-forward is possible)."""
        from dulwich.graph import can_fast_forward

        a, d = self._resolve(ancestor), self._resolve(descendant)
        return a is not None and d is not None and can_fast_forward(self._repo, a, d)

    def changed_paths(self, sha: str) -> list[str]:
        """Return the paths a commit changed against its first parent, sorted."""
        c = self._commit_obj(sha)
        parent = self._objects[c.parents[0]].tree if c.parents else None
        return sorted({p.decode() for p, _, _ in tree_diff(self._objects, parent, c.tree)})

    # -- writing -----------------------------------------------------------------------------

    def commit(
        self,
        branch: str,
        changes: Mapping[str, bytes | None],
        message: str,
        *,
        expected: str | None | EllipsisType = ...,
        create_from: str | None = None,
        allow_empty: bool = False,
    ) -> str:
        """Commit {path: content or None to delete} on top of branch; return the new head.

        Args:
            expected: the head the caller based its work on (default: the current head;
                None: the branch must not exist yet).
            create_from: fork a missing branch from this commit or branch.
            allow_empty: commit even when nothing changes (ledger commits); otherwise such a
                commit writes nothing and returns the current head.

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
            branch, encoded, message, parent=parent, base=base, allow_empty=allow_empty
        )

    def commit_with_retry(
        self,
        branch: str,
        build: Callable[[str | None], tuple[Mapping[str, bytes | None], str]],
        *,
        create_from: str | None = None,
        allow_empty: bool = False,
        attempts: int = 20,
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
                    create_from=create_from, allow_empty=allow_empty,
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
        store = _Staging(self._objects)
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
        changes: _Changes = {
            path: new and (new[0], store[new[1]].data)
            for path, _, new in tree_diff(store, head_tree, merged.id)
        }
        return self._commit(branch, changes, message, parent=head, base=head, allow_empty=True)

    def record_edits(self) -> str | None:
        """Commit what a person changed in the checked-out branch's worktree; None when clean.

        A file (or file name) holding a secret is left out and listed in `refused_edits`
        ({path: what was found, e.g. "aws_access_key at line 3"}): the rest is committed, and the
        file stays in the worktree, reported again by every run until the person removes the value.

        Raises:
            MemgitError: the worktree is in the middle of a merge.
        """
        if self._worktree is None:
            return None
        with self._worktree.locked():
            self._worktree.recover()
            branch = self.checked_out()
            head = self._head(branch) if branch else None
            if head is None:
                return None
            tree = self._objects[head].tree
            changes = self._worktree.edits(tree)
            self.refused_edits = self._refused(changes)
            for path in self.refused_edits:
                del changes[os.fsencode(path)]
            if not changes:
                return None
            listing = [
                ("deleted" if c is None else "changed" if self._objects.lookup(tree, p) else "added")
                + f": {os.fsdecode(p)}"
                for p, c in sorted(changes.items())
            ]
            scope = branch.removeprefix("projects/")  # subjects name scopes: main, <slug>
            subject = f"edit({scope}): {len(changes)} file(s) changed by hand"
            message = subject + "\n\n" + "\n".join(listing)
            return self._commit(branch, dict(changes), message, parent=head, base=head, allow_empty=False)

    def _refused(self, changes: Mapping[bytes, tuple[int, bytes] | None]) -> dict[str, str]:
        from memgit.core import redact

        refused = {}
        for raw, change in changes.items():
            path = os.fsdecode(raw)
            found = [("the file name", f) for f in redact.find_secrets(path, self.extra_patterns)]
            if change is not None:
                text = change[1].decode("utf-8", "replace")
                found += [(f"line {f.line}", f) for f in redact.find_secrets(text, self.extra_patterns)]
            if found:
                refused[path] = ", ".join(f"{f.kind} in {where}" for where, f in found[:3])
        return refused

    # -- internals ---------------------------------------------------------------------------

    def _commit(
        self, branch: str, changes: _Changes, message: str, *,
        parent: bytes | None, base: bytes | None, allow_empty: bool,
    ) -> str:  # fmt: skip
        """Build, gate, write and publish one commit whose first parent is `base`."""
        base_tree = self._objects[base].tree if base else None
        staging = _Staging(self._objects)
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
        if not edits and not allow_empty:
            if parent is None and base is not None:  # a fork without changes: just the branch
                self._publish(branch, None, base, f"branch: created from {base.decode()}")
            return (base or b"").decode()
        message = safe_text(message if message.endswith("\n") else message + "\n", self.extra_patterns)
        self.gate({**gated, MESSAGE_KEY: message.encode(), REF_KEY: branch.encode(),
                   PATHS_KEY: "\n".join(gated).encode("utf-8", "surrogateescape")})
        tree_id = commit_tree_changes(staging, base_tree or Tree(), edits)
        c = Commit()
        c.tree, c.parents = tree_id, [base] if base else []
        c.author = c.committer = self.author.encode()
        c.author_time = c.commit_time = int(time.time())
        c.author_timezone = c.commit_timezone = 0
        c.message = message.encode()
        staging.add_object(c)
        staging.flush()
        self._publish(branch, parent, c.id, message.split("\n", 1)[0])
        return c.id.decode()

    def _gate(self, blobs: Mapping[str, bytes]) -> None:
        from memgit.core import redact

        redact.gate(blobs, self.extra_patterns)

    def _publish(self, branch: str, old: bytes | None, new: bytes, subject: str) -> None:
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

    def _head(self, branch: str) -> bytes | None:
        try:
            return self._repo.refs[b"refs/heads/" + branch.encode()]
        except (KeyError, RefFormatError):
            return None

    def _resolve(self, rev: str) -> bytes | None:
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

    def _is_memgit(self) -> bool:
        try:
            root = self.root()
        except MemgitError:
            return False
        return self._objects[root.encode()].message.startswith(b"init(")


def _info(c: Commit) -> CommitInfo:
    parents = tuple(p.decode() for p in c.parents)
    return CommitInfo(c.id.decode(), parents, c.message.decode("utf-8", "replace"), c.commit_time)


class _Objects:
    """The object store, keeping parsed trees and commits (immutable by id) for reuse."""

    def __init__(self, store):
        self.store = store
        self._kept: dict[bytes, ShaFile] = {}

    def __getitem__(self, sha: bytes) -> ShaFile:
        obj = self._kept.get(sha)
        if obj is None:
            obj = self.store[sha]
            if not isinstance(obj, Blob):
                self.keep(obj)
        return obj

    def __contains__(self, sha: bytes) -> bool:
        return sha in self._kept or sha in self.store

    def keep(self, obj: ShaFile) -> None:
        if len(self._kept) >= 512:  # a commit needs ~10; a 10k-note scan ~200
            self._kept.clear()
        self._kept[obj.id] = obj

    def lookup(self, tree: bytes | None, path: bytes) -> tuple[int, bytes] | None:
        """Return the (mode, sha) at path in tree, or None."""
        entry = (stat.S_IFDIR, tree) if tree else None
        for part in path.split(b"/"):
            if entry is None or not stat.S_ISDIR(entry[0]):
                return None
            node = self[entry[1]]
            entry = node[part] if part in node else None
        return entry


class _Staging:
    """A view of the objects where new ones stay in memory until flush().

    Everything a commit needs is built here first, so the gate can refuse it before a single
    object reaches the disk; then the objects are written loose, children before parents.
    """

    def __init__(self, objects: _Objects):
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
        for obj in self._new.values():
            _add_object_tolerant(self._objects.store, obj)
            if not isinstance(obj, Blob):
                self._objects.keep(obj)


def _add_object_tolerant(store, obj: ShaFile) -> None:
    """Write one loose object: into a temporary file beside it, then renamed into place.

    Not dulwich's add_object: when its write fails (a full disk) it leaves its lock file behind,
    and a half-closed file whose cleanup fails again at garbage collection, printing a traceback.
    Here a failed write leaves nothing and raises its OSError. The temporary name starts with
    `tmp_obj_` as git's own do: `git fsck` passes over one a kill -9 left, and `git gc` prunes it.
    Two processes writing the same object at once both succeed: the bytes are the same.
    """
    hexsha = obj.id.decode("ascii")
    directory = os.path.join(store.path, hexsha[:2])
    path = os.path.join(directory, hexsha[2:])
    try:
        os.utime(path, None)  # there already: freshened, as git does (gc prunes by age)
        return
    except FileNotFoundError:
        pass
    except PermissionError:
        return  # there, and owned by another user of a shared repository: the content is the same
    os.makedirs(directory, exist_ok=True)
    data = obj.as_legacy_object(compression_level=store.loose_compression_level)
    fd, tmp = tempfile.mkstemp(prefix="tmp_obj_", dir=directory)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if store.fsync_object_files:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.chmod(tmp, 0o444)  # loose objects are read-only, as git makes them
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(e, OSError) and e.filename is None:
            e.filename = path  # os.write names no file: say which object could not be written
        raise


def _clear_stale_lock(lockfile: str | bytes) -> None:
    """Remove a ref or object lock a crashed writer left (no live writer holds one for long)."""
    try:
        if time.time() - os.stat(lockfile).st_mtime > _STALE_LOCK:
            os.unlink(lockfile)
    except FileNotFoundError:
        pass
