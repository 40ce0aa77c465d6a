"""Where a session's project is, and what PROJECT.md learns from the session (pure).

`memgit.core.scopes.resolve` answers which project an identity belongs to; placing also says what the
session proves about identities, so that every path and remote of one repository ends up on one
branch: a path found through its remote is listed, a path-only project learns its remote, and
projects that come to share a remote are joined (`same_repository`, by `memgit projects merge`'s
machinery) — in whatever order the sessions were synced.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace

from memgit.core.scopes import (FORGES, Identity, Project, known_paths, known_remotes, portable_path, resolve,
                                with_identity)


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a session goes, and what its project's PROJECT.md should list from now on."""

    project: Project | None  # None: no project knows the identity yet (`new_project` makes one)
    updates: tuple[Project, ...] = ()  # projects whose identities grew (to write to their PROJECT.md)


def place(identity: Identity, projects: Sequence[Project], cwd: str | None = None) -> Placement:
    """Return the project a session of `identity` goes to, recording what it proves about identities.

    The project is the one `resolve` finds, with what the session proves written down:

    - found by its remote at a path no project lists yet: that path is listed too (a hook started in
      that directory finds the project from its path, when the checkout is gone);
    - its path is listed on a project that knows no remote yet: that project gets the remote, and
      when another project already holds the remote, both list it and `same_repository` joins them;
    - a project that knows another remote never gets this one (two repositories stay apart), and a
      path listed on one project is never listed on a second.
    """
    ordered = sorted(projects, key=lambda p: p.branch)
    remote = portable_path(identity.remote) if identity.remote else None
    path = portable_path(os.path.normpath(identity.path))
    by_remote = next((p for p in ordered if remote and remote in known_remotes(p)), None)
    by_path = next((p for p in ordered if path in known_paths(p)), None)
    if by_remote is not None:
        if by_path is None:
            return Placement(by_remote, _grown(by_remote, with_identity(by_remote, identity)))
        if by_path is not by_remote and not known_remotes(by_path):
            return Placement(by_remote, _grown(by_path, _with_remote(by_path, identity)))
        return Placement(by_remote)
    if by_path is not None:
        if remote and not known_remotes(by_path):
            return Placement(by_path, _grown(by_path, _with_remote(by_path, identity)))
        return Placement(by_path)
    return Placement(resolve(identity, projects, cwd))


def _grown(before: Project, after: Project) -> tuple[Project, ...]:
    return () if after is before else (after,)


def _with_remote(project: Project, identity: Identity) -> Project:
    return replace(project, remotes=(*project.remotes, identity.remote)) if identity.remote else project


def with_evidence(identity: Identity, remote: str, projects: Sequence[Project]) -> Identity:
    """The identity of a directory that is no live checkout, once its sessions named its repository
    (memgit.core.evidence): that remote, unless a project already lists the path with another remote
    (the path was then a checkout of another repository: it keeps that one).

    Such a directory is a repository's root: never matched into an enclosing project by prefix.
    """
    if identity.in_repo:
        return identity  # a live checkout's own remote is its identity
    path = portable_path(os.path.normpath(identity.path))
    wanted = portable_path(remote)
    for project in sorted(projects, key=lambda p: p.branch):
        known = known_remotes(project)
        if path in known_paths(project) and known and wanted not in known:
            return identity
    return replace(identity, key=remote, remote=remote, in_repo=True)


def laid_out(path: str, projects: Sequence[Project]) -> str | None:
    """The repository a directory's path spells, for a directory that is no live checkout and whose
    sessions named none: `…/github.com/owner/repo` (as ghq and GOPATH lay clones out), or `…/owner/repo`
    when exactly one remote a project knows is that owner's repository of that name (owner and name both:
    `~/src/cli` or a fork under another owner is not it). Case aside, as the forges compare them."""
    parts = portable_path(os.path.normpath(path)).replace(os.sep, "/").lower().split("/")
    if len(parts) >= 4 and parts[-3] in FORGES and all(parts[-2:]):
        return "/".join(parts[-3:])
    if len(parts) < 3 or not all(parts[-2:]):
        return None
    wanted = "/".join(parts[-2:])
    known = {remote for p in projects for remote in known_remotes(p)
             if remote.split("/", 1)[0] in FORGES and remote.lower().split("/", 1)[-1] == wanted}
    return known.pop() if len(known) == 1 else None


def same_repository(projects: Sequence[Project]) -> list[tuple[str, tuple[str, ...]]]:
    """Projects that list one remote, as (the branch they join into, the branches joined into it).

    Sharing a remote is transitive (A and B share one, B and C another: one group). The branch kept is
    the shortest name, then the first in order (`projects/x` before `projects/x-2`), whatever order
    the projects were made in.
    """
    parent = {p.branch: p.branch for p in projects}

    def root(branch: str) -> str:
        while parent[branch] != branch:
            parent[branch] = parent[parent[branch]]
            branch = parent[branch]
        return branch

    owner: dict[str, str] = {}
    for project in sorted(projects, key=lambda p: p.branch):
        for remote in sorted(known_remotes(project)):
            if remote in owner:
                a, b = root(owner[remote]), root(project.branch)
                if a != b:
                    parent[max(a, b)] = min(a, b)
            else:
                owner[remote] = project.branch
    groups: dict[str, list[str]] = {}
    for branch in parent:
        groups.setdefault(root(branch), []).append(branch)
    joined = []
    for members in groups.values():
        if len(members) > 1:
            keep = min(members, key=lambda b: (len(b), b))
            joined.append((keep, tuple(sorted(b for b in members if b != keep))))
    return sorted(joined)
