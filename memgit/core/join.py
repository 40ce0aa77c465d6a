"""Joining two branches' trees file by file (DESIGN §5b): what each path of the joined tree holds.

Pure rules over {path: blob id} maps; `memgit.verbs.pull` reads the trees and commits the result.
Notes are one file per session or remembered item, so two machines add different files and most
joins have nothing to decide. What is left:

- a file changed on one side only takes that side (a deletion included);
- the same content on both sides (added on both, as two machines that each created their repo do
  with README.md) is kept;
- PROJECT.md changed on both sides is joined: the union of `remotes` and `paths` (ours first),
  our `name`, our body unless only theirs changed it;
- derived files (MEMORY.md, memory_summary.md, skills/) are never merged as text: changed on both
  sides they keep ours, and consolidation regenerates them from the joined notes right after;
- any other file changed differently on both sides (a session note, a pinned note, imported
  memory, README.md, .gitignore...) is a conflict: listed, never committed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace

from memgit.core.scopes import Project, normalise_remote, parse_project_md, portable_path, render_project_md
from memgit.core.vocab import SUMMARY_FILE

PROJECT_FILE = "PROJECT.md"
DERIVED_FILES = ("MEMORY.md", SUMMARY_FILE)
DERIVED_DIRS = ("skills/",)


def is_derived(path: str) -> bool:
    """Tell whether consolidation writes this file (it is regenerated after a join, never merged)."""
    return path in DERIVED_FILES or path.startswith(DERIVED_DIRS)


@dataclass(frozen=True, slots=True)
class TreeJoin:
    """What the joined tree holds, and what could not be decided."""

    files: dict[str, str]  # path -> blob id (PROJECT.md: ours, until `join_project_md` joins it)
    conflicts: tuple[str, ...]  # changed differently on both sides: nothing may be committed
    taken: tuple[str, ...]  # paths where the joined tree follows theirs (added, changed or deleted there)
    project: bool = False  # PROJECT.md changed on both sides: join its texts with `join_project_md`


def join_trees(base: Mapping[str, str], ours: Mapping[str, str], theirs: Mapping[str, str]) -> TreeJoin:
    """Decide every path of ours and theirs against their merge base (empty for unrelated histories)."""
    files: dict[str, str] = {}
    conflicts, taken = [], []
    project = False
    for path in sorted(ours.keys() | theirs.keys()):
        b, o, t = base.get(path), ours.get(path), theirs.get(path)
        if o == t or t == b:
            chosen = o
        elif o == b:
            chosen = t
            taken.append(path)
        elif is_derived(path):
            chosen = o
        elif path == PROJECT_FILE and o is not None and t is not None:
            chosen, project = o, True
        else:
            conflicts.append(path)
            chosen = o
        if chosen is not None:
            files[path] = chosen
    return TreeJoin(files, tuple(conflicts), tuple(taken), project)


def join_project_md(base: str | None, ours: str, theirs: str, branch: str) -> str:
    """Return PROJECT.md holding both identities: remotes and paths united (ours first), our name,
    our body unless only theirs changed it, and the front matter keys of both (ours win).

    Raises:
        ValueError: either side's front matter cannot be read (the caller reports a conflict).
    """
    mine, other = parse_project_md(ours, branch), parse_project_md(theirs, branch)
    old = parse_project_md(base, branch) if base is not None else None
    body = other.body if old is not None and mine.body == old.body else mine.body
    joined = united(mine, other)
    return render_project_md(replace(joined, body=body, extra={**other.extra, **mine.extra}))


def united(ours: Project, theirs: Project) -> Project:
    """`ours` also listing the remotes and paths of `theirs` it does not list yet (in their order)."""
    return replace(ours, remotes=_added(ours.remotes, _remotes(ours), theirs.remotes, _remote_key),
                   paths=_added(ours.paths, _paths(ours), theirs.paths, _path_key))


def _added(mine: tuple[str, ...], known: set, others: tuple[str, ...], key) -> tuple[str, ...]:
    """mine, then each of others whose key (None: not an identity) is not known yet."""
    found, known = list(mine), set(known)
    for value in others:
        k = key(value)
        if k is not None and k not in known:
            found.append(value)
            known.add(k)
    return tuple(found)


def overlaps(a: Project, b: Project) -> bool:
    """Tell whether two projects share an identity: a remote or a path (as `scopes.resolve` compares them)."""
    return bool(_remotes(a) & _remotes(b) or _paths(a) & _paths(b))


def has_identity(project: Project) -> bool:
    return bool(_remotes(project) or _paths(project))


def _remote_key(remote: str) -> str | None:
    return portable_path(normalise_remote(remote)) if remote.strip() else None


def _path_key(path: str) -> str | None:
    return portable_path(os.path.normpath(path)) if path.strip() else None


def _remotes(project: Project) -> set[str]:
    return {k for r in project.remotes if (k := _remote_key(r))}


def _paths(project: Project) -> set[str]:
    return {k for p in project.paths if (k := _path_key(p))}
