"""`memgit scan`: the whole memory repository checked for secrets, history included.

Every object in the store, reachable or not (a blob a rewrite left behind is still on disk and
still pushed by a mirror), every ref name, every reflog line, the config (a remote URL with a
password) and every derived file under .git/memgit. A finding says what kind of secret it looks
like and where it is — the commit and file that first hold it, or the file on disk — never its value.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterable, Sequence

from memgit.core import redact
from memgit.core.names import safe_text
from memgit.store.objects import StoredObject, stored_objects

MAX_CACHE_FILE = 256 << 20  # bytes; a bigger file under .git/memgit is not memgit's


@dataclass(frozen=True, slots=True)
class Found:
    kind: str  # the redaction rule's kind: github_token, private_key, ...
    where: str  # file | file name | commit message | branch name | ref name | reflog | config | cache | unreachable file
    path: str = ""  # the file in the commit, the ref, or the file under .git
    commit: str = ""  # the oldest commit holding it, when it is in one
    line: int = 0

    @property
    def id(self) -> str:
        """A short name for this finding, the same at every scan while the history stays (`memgit purge --finding ID`)."""
        key = "\0".join((self.kind, self.where, self.path, self.commit, str(self.line)))
        return hashlib.sha1(key.encode("utf-8", "surrogateescape")).hexdigest()[:10]

    def describe(self) -> str:
        place = f"{self.where} {self.path}".strip() if self.path else self.where
        at = f" (commit {self.commit[:12]}" + (f", line {self.line}" if self.line else "") + ")" if self.commit else \
            (f" (line {self.line})" if self.line else "")
        return f"{self.kind} in {place}{at}"


def scan(repo, extra_patterns: Sequence[str] = (), *, caches: bool = True) -> list[Found]:
    """Every possible secret in `repo` (a memgit.store.repo.MemoryRepo), oldest commits first.

    Args:
        caches: also the files under .git/memgit (derived: deleting them removes a finding there).
    """
    check = _checker(extra_patterns)
    found = _in_objects(repo.objects(), extra_patterns)
    for ref in repo.refs():
        found += [Found(f.kind, "branch name" if ref.startswith("refs/heads/") else "ref name", path=ref)
                  for f in check(ref)]
    git_dir = repo.git_dir
    found += _files(git_dir / "logs", "reflog", check, git_dir)
    found += _files(git_dir / "config", "config", check, git_dir)
    if caches:
        found += _files(git_dir / "memgit", "cache", check, git_dir)
    return _named_safely(found, extra_patterns)


def scan_objects(objects: Iterable[StoredObject], extra_patterns: Sequence[str] = ()) -> list[Found]:
    """Every possible secret in these objects (files, file names, commit messages): what a push is
    about to send, or what a fetch brought, located by the commits among them."""
    return _named_safely(_in_objects(objects, extra_patterns), extra_patterns)


def _named_safely(found: list[Found], extra_patterns: Sequence[str]) -> list[Found]:
    # A place may be named by the secret itself (a file or branch named after a token): say where, not what.
    return [replace(f, path=safe_text(f.path, extra_patterns)) for f in found]


def _checker(extra_patterns: Sequence[str]) -> Callable[[str], list[redact.Finding]]:
    """What finds the possible secrets of one text, with the person's own patterns."""
    return lambda text: redact.find_secrets(text, extra_patterns)


def _in_objects(objects: Iterable[StoredObject], extra_patterns: Sequence[str]) -> list[Found]:
    check = _checker(extra_patterns)
    found: list[Found] = []
    blobs: dict[str, list[redact.Finding]] = {}  # flagged blob -> its findings
    names: dict[str, list[tuple[str, redact.Finding]]] = {}  # tree -> (entry name, finding)
    commits, trees = [], {}
    entries: list[tuple[str, str]] = []  # (tree, entry name): checked together, after
    for obj in objects:
        if obj.kind == "blob":
            if hits := check(obj.data.decode("utf-8", "replace")):
                blobs[obj.sha] = hits
        elif obj.kind == "commit":
            commits.append(obj)
            found += [Found(f.kind, "commit message", commit=obj.sha, line=f.line)
                      for f in check(obj.data.decode("utf-8", "replace"))]
        elif obj.kind == "tree":
            trees[obj.sha] = obj.entries
            entries += [(obj.sha, name.decode("utf-8", "surrogateescape")) for name, _, _ in obj.entries]
        else:  # a tag
            found += [Found(f.kind, f"{obj.kind} object", path=obj.sha) for f in check(obj.data.decode("utf-8", "replace"))]
    for (tree, name), hits in zip(entries, redact.secrets_in_each([name for _, name in entries], extra_patterns)):
        if hits:
            names.setdefault(tree, []).extend((name, f) for f in hits)
    located = _locate(commits, trees, set(blobs), set(names))
    for sha, hits in blobs.items():
        commit, path = located.get(sha, ("", ""))
        found += [Found(f.kind, "file" if commit else "unreachable file", path=path or sha, commit=commit, line=f.line)
                  for f in hits]
    for sha, hits in names.items():
        commit, path = located.get(sha, ("", ""))
        found += [Found(f.kind, "file name", path=f"{path}/{name}".lstrip("/") if commit else name, commit=commit)
                  for name, f in hits]
    return found


def _locate(commits, trees: dict, blobs: set[str], flagged_trees: set[str]) -> dict[str, tuple[str, str]]:
    """{blob or tree sha: (the oldest commit holding it, its path there)}; each tree is walked once."""
    where: dict[str, tuple[str, str]] = {}
    wanted = blobs | flagged_trees
    if not wanted:
        return where
    seen: set[str] = set()
    for commit in sorted(commits, key=lambda c: (c.time, c.sha)):
        stack = [(commit.tree, "")]
        while stack:
            tree, prefix = stack.pop()
            if tree in seen or tree not in trees:
                continue
            seen.add(tree)
            if tree in flagged_trees and tree not in where:
                where[tree] = (commit.sha, prefix)
            for name, mode, sha in trees[tree]:
                path = f"{prefix}/{name.decode('utf-8', 'surrogateescape')}".lstrip("/")
                if mode & 0o170000 == 0o040000:
                    stack.append((sha, path))
                elif sha in blobs and sha not in where:
                    where[sha] = (commit.sha, path)
    return where


def _files(root: Path, where: str, check, git_dir: Path) -> list[Found]:
    paths = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else []
    found = []
    for path in paths:
        try:
            if path.stat().st_size > MAX_CACHE_FILE:
                continue
            text = path.read_bytes().decode("utf-8", "replace")
        except OSError:
            continue
        rel = os.path.relpath(path, git_dir.parent)
        found += [Found(f.kind, f"{where} file name", path=rel) for f in check(rel)]
        found += [Found(f.kind, where, path=rel, line=f.line) for f in check(text)]
    return found


def secret_values(repo, found: Iterable[Found], extra_patterns: Sequence[str] = ()) -> dict[bytes, str]:
    """{value: kind} of the findings in objects (files, file names, commit messages, unreachable
    files): what a purge replaces. Kept in memory only; every other finding has no value to give."""
    values: dict[bytes, str] = {}
    for f in found:
        if f.where == "file":
            texts = [repo.read(f.commit, f.path) or b""]
        elif f.where == "unreachable file":
            texts = [repo.read_blob(f.path)]
        elif f.where == "commit message":
            texts = [repo._commit_obj(f.commit).message]
        elif f.where == "file name" and f.commit:  # the path shown is made safe: look the names up again
            texts = [path.encode("utf-8", "surrogateescape") for path in repo.files(f.commit)]
        else:
            continue
        for data in texts:
            text = data.decode("utf-8", "surrogateescape")
            for hit in redact.find_secrets(text, extra_patterns):
                if hit.kind == f.kind and (f.where == "file name" or not f.line or hit.line == f.line):
                    values[text[hit.start:hit.end].encode("utf-8", "surrogateescape")] = hit.kind
    return values


def scan_since(repo, seen: dict[str, str], extra_patterns: Sequence[str] = ()) -> list[Found]:
    """The possible secrets in what the branches gained since their heads were `seen` ({branch: sha}),
    and in the drafts memgit kept of refused edits: what a person wrote by hand, past the gate (a
    commit made with git, a draft under .git/memgit). Reads only the new objects."""
    from dulwich.object_store import MissingObjectFinder

    store = repo._repo.object_store
    wants = sorted({sha.encode() for branch, sha in repo.branches().items() if seen.get(branch) != sha})
    found = []
    if wants:
        haves = [sha.encode() for sha in seen.values() if sha.encode() in store]
        ids = [sha for sha, _ in MissingObjectFinder(store, haves=haves, wants=wants)]
        found = _in_objects(stored_objects(store, ids), extra_patterns)
    found += _files(repo.git_dir / "memgit" / "drafts", "cache", _checker(extra_patterns), repo.git_dir)
    return _named_safely(found, extra_patterns)
