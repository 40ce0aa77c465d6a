"""A person's edits: find what they changed in the checked-out branch's worktree, and commit it
(files holding a secret left out and reported, never committed)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

from dulwich.ignore import IgnoreFilter, IgnoreFilterManager
from dulwich.objects import Blob

from memgit.core import hand
from memgit.core.ledger import format_message
from memgit.core.vocab import PREFIX
from memgit.errors import MemgitError
from memgit.store.commits import RepoCommits
from memgit.store.gate import refused
from memgit.store.index import stat_clean
from memgit.store.objects import State, flatten
from memgit.store.worktree import Worktree, file_content, file_mode

# Editor and OS litter: never a person's edit, even on a branch without the template .gitignore
# (repos made before it shipped, a person who removed a line). Keep in step with templates/repo/.gitignore.
ALWAYS_IGNORED = (".DS_Store", "._*", "Thumbs.db", "desktop.ini", "*.swp", "*.swo", "*.swn", "*~", ".#*",
                  "\\#*#", ".idea/", ".vscode/")


# git's own merges of the files memgit regenerates (a person's `git revert` of an edit commit, say) take
# the lines of both sides instead of stopping at a conflict: the next consolidation rewrites them anyway.
REGENERATED_MERGE = ("MEMORY.md merge=union", "memory_summary.md merge=union", "skills/*/SKILL.md merge=union")


class RepoEdits(RepoCommits):
    """Recording a person's worktree edits as a commit of a MemoryRepo."""

    refused_edits: dict[str, str]
    kept_edits: list[str]

    def record_edits(self) -> str | None:
        """Commit what a person changed in the checked-out branch's worktree; None when clean.

        A file (or file name) holding a secret is left out and listed in `refused_edits`
        ({path: what was found, e.g. "aws_access_key at line 3"}): the rest is committed, and the
        file stays in the worktree, reported again by every run until the person removes the value.

        Raises:
            MemgitError: the worktree is in the middle of a merge.
        """
        self.kept_edits = []
        if self._worktree is None:
            return None
        self._settle()  # the worktree is compared with the head on disk
        with self._worktree.locked():
            self._worktree.recover()
            branch = self.checked_out()
            head = self._head(branch) if branch else None
            if head is None:
                return None
            tree = self._objects[head].tree
            changes = worktree_edits(self._worktree, tree)
            self.refused_edits = refused(changes, self.extra_patterns)
            for path in self.refused_edits:
                del changes[os.fsencode(path)]
            if not changes:
                return None
            listing = [
                ("deleted" if c is None else "changed" if self._objects.lookup(tree, p) else "added")
                + f": {os.fsdecode(p)}"
                for p, c in sorted(changes.items())
            ]
            scope = branch.removeprefix(PREFIX)  # subjects name scopes: main, <slug>
            what = f"{len(changes)} file(s) changed by hand"
            trailers = self._keep(head.decode(), changes, listing)
            message = format_message("edit", scope, what, body="\n".join(listing), trailers=trailers)
            return self._commit(branch, dict(changes), message, parent=head, base=head, allow_empty=False)

    def keep_reverts_clean(self) -> None:
        """Tell git (.git/info/attributes, never committed) to merge regenerated files by union."""
        path = self.git_dir / "info" / "attributes"
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            text = ""
        missing = [line for line in REGENERATED_MERGE if line not in text.splitlines()]
        if missing:
            path.parent.mkdir(parents=True, exist_ok=True)
            lead = "" if not text or text.endswith("\n") else "\n"
            path.write_text(text + lead + "# memgit: files it regenerates (a revert of a hand edit must not stop)\n"
                            + "\n".join(missing) + "\n", encoding="utf-8")

    def _keep(self, head: str, changes: dict, listing: list[str]) -> list[tuple[str, str]]:
        """Read the person's edits of derived files as theirs (memgit.core.hand): add the records and
        pinned notes to `changes`, say so in `listing` and `kept_edits`; return the trailers."""
        self.kept_edits, trailers = [], []
        now = time.gmtime()
        notes = self.list(head, hand.NOTES_DIR)
        for raw in sorted(changes):
            path, change = os.fsdecode(raw), changes[raw]
            old = (self.read(head, path) or b"").decode("utf-8", "replace")
            if change is None or not hand.regenerated(path, old):
                continue
            kept = hand.keep(path, old, change[1].decode("utf-8", "replace"),
                             stamp=time.strftime("%Y-%m-%d-%H%M%S", now), day=time.strftime("%Y-%m-%d", now),
                             read=lambda p: _after(self, head, changes, p), pinned_notes=notes)
            if kept is None:
                continue
            for extra, data in kept.changes.items():
                changes[os.fsencode(extra)] = None if data is None else (0o100644, data)
            listing.append(kept.describe(path))
            self.kept_edits.append(kept.describe(path))
            trailers += kept.trailers
        if trailers:
            self.keep_reverts_clean()
        return trailers


def _after(repo: RepoEdits, head: str, changes: dict, path: str) -> bytes | None:
    """A file as the edit commit will have it."""
    raw = os.fsencode(path)
    if raw in changes:
        return None if changes[raw] is None else changes[raw][1]
    return repo.read(head, path)


def worktree_edits(worktree: Worktree, head_tree: bytes) -> dict[bytes, tuple[int, bytes] | None]:
    """Return what the worktree changed against head_tree: {path: (mode, data) | None}."""
    head: dict[bytes, State] = {}
    flatten(worktree.objects, head_tree, b"", head)
    index = worktree.read_index()
    try:
        index_time = os.stat(worktree.index_path).st_mtime_ns
    except FileNotFoundError:
        index_time = 0
    cached: dict[bytes, tuple] = {}
    for name, fields in index.entries():
        if fields[11] & 0x3000:
            raise MemgitError(
                f"{os.fsdecode(worktree.root)} has an unfinished merge ({os.fsdecode(name)} is "
                "conflicted); finish it with git (commit or `git merge --abort`), then retry"
            )
        cached[name] = fields
    changes: dict[bytes, tuple[int, bytes] | None] = {}
    for path in head.keys() | cached.keys():
        if head.get(path, (0,))[0] == 0o160000:
            continue  # submodules are not memgit's business
        full = worktree.root + b"/" + path
        try:
            st = os.lstat(full)
        except (FileNotFoundError, NotADirectoryError):
            st = None
        mode = file_mode(st) if st else None
        if mode is None:
            if path in head:
                changes[path] = None
            continue
        fields, data = cached.get(path), None
        if fields and stat_clean(fields, st, mode, index_time):
            state: State = (mode, fields[10].hex().encode())
        else:
            data = file_content(full, mode)
            state = (mode, Blob.from_string(data).id)
        if head.get(path) != state:
            changes[path] = (mode, file_content(full, mode) if data is None else data)
    for path in _untracked(worktree, head.keys() | cached.keys()):
        full = worktree.root + b"/" + path
        mode = file_mode(os.lstat(full))
        if mode is not None:
            changes[path] = (mode, file_content(full, mode))
    return changes


def _untracked(worktree: Worktree, tracked: set[bytes]) -> Iterator[bytes]:
    tracked_dirs: set[bytes] = set()
    for path in tracked:
        while (cut := path.rfind(b"/")) > 0 and (path := path[:cut]) not in tracked_dirs:
            tracked_dirs.add(path)
    ignore = IgnoreFilterManager.from_repo(worktree.repo)
    litter = IgnoreFilter([p.encode() for p in ALWAYS_IGNORED])
    stack = [b""]
    while stack:
        rel = stack.pop()
        with os.scandir(worktree.root + b"/" + rel if rel else worktree.root) as it:
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
