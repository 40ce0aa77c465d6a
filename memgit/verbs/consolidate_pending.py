"""What consolidation has yet to read: a scope is pending when commits after the head its last
consolidation read changed what consolidation reads (notes, pinned notes, PROJECT.md, or its own
outputs by hand). A consolidate commit's `Memgit-Through` is the head it read (its parent); the
global one also records, as `Memgit-Read: <branch> <sha>`, the project heads it read.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from memgit.core import scopes
from memgit.core.ledger import parse_subject, parse_trailers
from memgit.core.vocab import MAIN

KIND = "consolidate"  # a consolidate commit's subject: consolidate(<scope>): …
# What a scope's consolidation reads (and writes: a hand edit of an output is consolidated again).
INPUTS = ("sessions/", "notes/", "PROJECT.md", "MEMORY.md", "memory_summary.md", "skills/", "hand/")
# What the global consolidation reads of a project branch.
PROJECT_INPUTS = ("sessions/", "memory_summary.md", "PROJECT.md")


@dataclass(slots=True)
class _Last:
    """The newest consolidate commit on a branch's first-parent line, and what came after it."""

    sha: str | None = None
    through: str | None = None
    parent: str | None = None
    read: dict[str, str] = field(default_factory=dict)  # global: project branch -> head read
    after: list[str] = field(default_factory=list)  # shas of later commits, newest first


def last_consolidation(repo, head: str) -> _Last:
    """Find the newest consolidate commit from head along first parents."""
    last = _Last()
    for info in repo.walk(head):
        subject = parse_subject(info.message)
        trailers = parse_trailers(info.message)
        if subject and subject[0] == KIND and trailers.get("Memgit-Through"):
            last.sha, last.through = info.sha, trailers["Memgit-Through"][0]
            last.parent = info.parents[0] if info.parents else None
            for value in trailers.get("Memgit-Read", []):
                branch, _, sha = value.rpartition(" ")
                if branch:
                    last.read[branch] = sha
            return last
        last.after.append(info.sha)
    return last


def _touches(repo, shas: Iterable[str], prefixes: tuple[str, ...]) -> bool:
    return any(p.startswith(prefixes) for sha in shas for p in repo.changed_paths(sha))


def has_inputs(repo, head: str) -> bool:
    """Notes to consolidate, or an earlier consolidation to bring up to date (its notes all reverted)."""
    return bool(repo.tree_id(head, "sessions") or repo.tree_id(head, "notes") or repo.read(head, "MEMORY.md") is not None)


def pending(repo, branch: str) -> bool:
    """True when a project branch has something its last consolidation did not read."""
    head = repo.head(branch)
    if head is None:
        return False
    last = last_consolidation(repo, head)
    if last.sha is None:
        return has_inputs(repo, head)
    if not last.after:
        return last.parent != last.through
    return _touches(repo, last.after, INPUTS)


def _project_moved(repo, branch: str, recorded: str | None, head: str) -> bool:
    if recorded == head:
        return False
    if recorded is None or not repo.is_ancestor(recorded, head):
        return True
    return _touches(repo, (i.sha for i in repo.walk(head, stop_at=recorded)), PROJECT_INPUTS)


def global_pending(repo) -> bool:
    """True when main's own inputs or any project's notes or summary changed since main's last consolidation."""
    head = repo.head(MAIN)
    if head is None:
        return False
    last = last_consolidation(repo, head)
    projects = project_heads(repo)
    if last.sha is None:
        return has_inputs(repo, head) or any(repo.tree_id(h, "sessions") for h in projects.values())
    if last.after and _touches(repo, last.after, INPUTS) or not last.after and last.parent != last.through:
        return True
    if set(last.read) != set(projects):
        return True
    return any(_project_moved(repo, b, last.read.get(b), h) for b, h in projects.items())


def project_heads(repo) -> dict[str, str]:
    return {b: h for b, h in sorted(repo.branches().items()) if b.startswith(scopes.BRANCH_PREFIX)}

