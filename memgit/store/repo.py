"""The memory repository: read files on any branch, commit with compare-and-swap, revert.

MemoryRepo is the store's one door; this module opens and creates repositories, and the class
gathers its jobs from the modules beside it, each with one:

    reads.py    refs, files and trees at any revision, history (gitlog.py: the `git log` stream)
    commits.py  a commit built in the object store (objects.py), gated (gate.py), published by
                compare-and-swap, retried on a lost race; revert
    edits.py    a person's edits to the checked-out worktree, committed with secrets left out
    worktree.py the checked-out branch's worktree and index moved along (index.py: the index)
    merge.py    merge commits of another machine's branches, branches created, moved, renamed, deleted

The store package is the only code that imports dulwich. It works on the object store and refs,
so any branch can be written while another is checked out (DESIGN §3).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from dulwich.errors import NotGitRepository
from dulwich.repo import Repo

from memgit.core.vocab import MAIN
from memgit.errors import MemgitError, NotARepo
from memgit.store.merge import RepoMerges
from memgit.store.gate import Gate, redact_gate
from memgit.store import packs
from memgit.store.objects import Objects
from memgit.store.worktree import Worktree

DEFAULT_AUTHOR = "memgit <memgit@localhost>"
INIT_MESSAGE = "init(main): create memory repository"


class MemoryRepo(RepoMerges):
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
        self._objects = Objects(repo.object_store)
        self._worktree = None if repo.bare else Worktree(repo, self._objects)
        self._root: str | None = None
        self._batch = None  # commits.py: a batch of commits being made, published together
        self.refused_edits: dict[str, str] = {}  # set by record_edits
        self.kept_edits: list[str] = []  # set by record_edits: hand edits of derived files kept as the person's

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
        self = cls.empty(path, author=author, gate=gate, extra_patterns=extra_patterns)
        changes = {p.encode(): (None, data) for p, data in files.items()}
        self._commit(MAIN, changes, INIT_MESSAGE, parent=None, base=None, allow_empty=True)
        return self

    @classmethod
    def empty(
        cls, path: Path, *, author: str = DEFAULT_AUTHOR, gate: Gate | None = None,
        extra_patterns: Sequence[str] = (),
    ) -> MemoryRepo:
        """Create a repository at path without a commit, `main` to be checked out (a clone fills it)."""
        path.mkdir(parents=True, exist_ok=True)
        repo = Repo.init(str(path), default_branch=MAIN.encode())
        config = repo.get_config()
        # What git itself writes (a person's commit, `git gc`) survives a power cut: objects, loose
        # and packed, and refs. Not core.fsyncObjectFiles: git >= 2.36 warns about it on every
        # command; memgit's own writes fsync regardless (packs.py, and see __init__).
        config.set((b"core",), b"fsync", b"committed")
        config.write_to_path()
        return cls(repo, author=author, gate=gate, extra_patterns=extra_patterns)

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

    # -- the object store's upkeep (packs.py) ------------------------------------------------

    def compact_packs(self) -> int:
        """Merge the small packs when there are more than a few; return how many were merged."""
        return packs.compact(self._repo.object_store)

    def pack_objects(self) -> tuple[int, int]:
        """Pack every loose object and every pack into one (`memgit gc`); return (loose objects
        packed, packs merged). The new pack is durable before an old copy is removed."""
        self._settle()
        return packs.repack_all(self._repo.object_store)

    def object_counts(self) -> dict[str, int]:
        """{"loose": loose objects, "packs": packs}: what `git count-objects -v` calls count and packs."""
        store = self._repo.object_store
        return {"loose": packs.loose_count(store), "packs": len(packs.pack_sizes(store))}

    def _gate(self, blobs: Mapping[str, bytes]) -> None:
        redact_gate(blobs, self.extra_patterns)

    def _is_memgit(self) -> bool:
        try:
            root = self.root()
        except MemgitError:
            return False
        return self._objects[root.encode()].message.startswith(b"init(")
