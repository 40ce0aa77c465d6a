"""The repository's integrity, for `memgit doctor`: `git fsck` when git is installed, else dulwich.

memgit runs without git. Then every object in the store is read, parsed and hashed against its
name, and every branch's history is walked to its root, each commit, tree and file present.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from dulwich.objects import Commit, Tree, object_header
from dulwich.repo import Repo

from memgit.store.objects import UNREADABLE

MAX_PROBLEMS = 50  # a broken pack can yield thousands of lines; the first ones say enough
_GITLINK = 0o160000  # a submodule entry: a commit of another repository, not stored here


@dataclass(frozen=True, slots=True)
class FsckReport:
    tool: str  # "git fsck" or "dulwich"
    problems: tuple[str, ...]  # empty when the repository is sound


def fsck(path: Path, *, use_git: bool = True) -> FsckReport:
    """Check the repository at `path` (its worktree): `git fsck --strict` when git is on PATH.

    Args:
        use_git: False checks with dulwich even when git is installed (tests compare both).
    """
    git = shutil.which("git") if use_git else None
    return _git_fsck(git, Path(path)) if git else _walk(Path(path))


def _git_fsck(git: str, path: Path) -> FsckReport:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}  # memgit may run in a git hook
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    # --git-dir, not -C: git must not walk up to a parent repository when this one is gone.
    proc = subprocess.run([git, "--git-dir", str(path / ".git"), "fsck", "--strict", "--no-progress", "--no-dangling"],
                          capture_output=True, text=True, errors="replace", env=env, stdin=subprocess.DEVNULL,
                          check=False)
    if proc.returncode == 0:
        return FsckReport("git fsck", ())
    lines = [line.strip() for line in (proc.stderr + proc.stdout).splitlines() if line.strip()]
    return FsckReport("git fsck", tuple(lines[:MAX_PROBLEMS]) or (f"git fsck exited with {proc.returncode}",))


def _walk(path: Path) -> FsckReport:
    repo = Repo(str(path))
    try:
        store = repo.object_store
        problems: list[str] = []
        present = set(store)
        bad = set()
        for sha in sorted(present):
            why = _unreadable(store, sha)
            if why:
                bad.add(sha)
                problems.append(f"object {sha.decode()}: {why}")
        seen: set[bytes] = set()
        for ref, head in sorted(repo.refs.as_dict(b"refs/heads").items()):
            problems += [f"refs/heads/{ref.decode('utf-8', 'replace')}: {gap}" for gap in _gaps(store, head, present, bad, seen)]
        return FsckReport("dulwich", tuple(problems[:MAX_PROBLEMS]))
    finally:
        repo.close()


def _unreadable(store, sha: bytes) -> str | None:
    """Why the object cannot be trusted, or None: it reads, parses, and hashes to its name."""
    try:
        obj = store[sha]
        obj.check()
        raw = obj.as_raw_string()
        actual = hashlib.sha1(object_header(obj.type_num, len(raw)) + raw).hexdigest().encode()
    except UNREADABLE as e:
        return f"cannot be read ({type(e).__name__}: {e})"
    return None if actual == sha else f"content hashes to {actual.decode()}"


def _gaps(store, head: bytes, present: set[bytes], bad: set[bytes], seen: set[bytes]) -> list[str]:
    """What is missing from the history of `head`: commits, trees and files (each object once)."""
    gaps = []
    stack = [(head, "commit")]
    while stack:
        sha, kind = stack.pop()
        if sha in seen or sha in bad:  # an unreadable object is reported once, by the first pass
            continue
        seen.add(sha)
        if sha not in present:
            gaps.append(f"missing {kind} {sha.decode()}")
            continue
        if kind == "blob":
            continue
        obj = store[sha]
        if kind == "commit" and isinstance(obj, Commit):
            stack += [(p, "commit") for p in obj.parents] + [(obj.tree, "tree")]
        elif kind == "tree" and isinstance(obj, Tree):
            stack += [(entry.sha, "tree" if entry.mode & 0o170000 == 0o040000 else "blob")
                      for entry in obj.iteritems() if entry.mode != _GITLINK]
        else:
            gaps.append(f"{sha.decode()} should be a {kind}, is a {obj.type_name.decode()}")
    return gaps
