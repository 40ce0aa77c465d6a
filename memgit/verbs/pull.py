"""Joining another machine's memory into this one (DESIGN §5b): every memgit branch the last fetch
left under `refs/remotes/<remote>/` is created, fast-forwarded or merged here, then the derived
files are regenerated and the session-start caches refreshed.

Branch names follow project identity, and the remote's name wins so that two machines converge:
a local project branch under another name with the same identity is joined into the remote's name
(`renamed`); a local branch with the remote's name but another identity moves aside to a free slug.
A conflict leaves its branch untouched and is reported with its paths; the other branches still join.
"""

from __future__ import annotations

import logging
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field

from memgit.config import Config
from memgit.core import join as rules
from memgit.core import scopes
from memgit.core.vocab import MAIN, PREFIX
from memgit.errors import MemgitError, SecretFound, StorageError
from memgit.store.remote import remote_heads
from memgit.verbs import joining
from memgit.verbs.joining import AHEAD, CONFLICT

log = logging.getLogger("memgit.verbs.pull")
RENAMED, REFUSED = "renamed", "refused"


@dataclass(slots=True)
class BranchJoined:
    """What joining one of the remote's branches did."""

    branch: str
    outcome: str  # created | fast-forward | merged | up-to-date | ahead | renamed | conflict | refused
    head: str | None = None  # the local branch's head afterwards
    conflicts: list[str] = field(default_factory=list)  # paths changed differently on both sides
    advice: str = ""  # conflict or refused: what to do
    renamed_from: str | None = None  # renamed: the local branch of the same project, now under this name
    then: str = ""  # renamed: how the remote's commits joined it (created, fast-forward, merged...)
    moved_to: str | None = None  # the local branch of this name was another project: moved there
    into: str | None = None  # the remote's commits were (already) in this local branch of the same project


@dataclass(slots=True)
class Joined:
    """The result of `join`: per remote branch what happened, and what followed."""

    remote: str
    branches: list[BranchJoined] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)  # local branches joined into another, then deleted
    consolidated: list[str] = field(default_factory=list)  # scopes consolidated afterwards
    consolidation_error: str = ""

    @property
    def conflicts(self) -> list[BranchJoined]:
        return [b for b in self.branches if b.outcome in (CONFLICT, REFUSED)]

    @property
    def ok(self) -> bool:
        return not self.conflicts

    def rows(self) -> list[dict]:
        """Per remote branch what happened, as plain values (`action` is the outcome)."""
        return [{"branch": b.branch, "action": b.outcome, **{k: v for k, v in asdict(b).items()
                                                            if k not in ("branch", "outcome")}} for b in self.branches]

    def conflict_rows(self) -> list[dict]:
        """The branches left as they were: {branch, paths, advice} (paths empty when the gate refused)."""
        return [{"branch": b.branch, "paths": b.conflicts, "advice": b.advice} for b in self.conflicts]


def join(repo, cfg: Config, remote: str, *, wait: bool = True, hold_lock: bool = True) -> Joined:
    """Join the memgit branches last fetched from `remote` into the local ones.

    Args:
        repo: an open memgit.store.repo.MemoryRepo.
        remote: the remote's name, as in refs/remotes/<remote>/.
        wait: wait for a sync holding the lock (else raise LockHeld).
        hold_lock: take the sync lock for the join (False when the caller holds it already).

    Returns:
        Per branch what happened; conflicts are in it (`ok` is false), never raised.

    Raises:
        LockHeld: a sync holds the lock and `wait` is false.
        MemgitError: the worktree is mid-merge (nothing was joined).
        StorageError: the consolidation cache's disk is full or read-only (the joins are committed).
    """
    from memgit.store.lock import sync_lock

    with sync_lock(cfg.state_dir, wait=wait) if hold_lock else nullcontext():
        repo.record_edits()  # a person's unrecorded edit is committed before the worktree may move
        theirs = remote_heads(repo, remote)
        result = Joined(remote)
        before = repo.branches()
        identities = {b: joining.project(repo, b, sha) for b, sha in theirs.items()}
        for name in sorted(theirs):
            result.branches += _join_branch(repo, remote, name, theirs, identities, result.deleted)
        result.deleted += _retire(repo, theirs)
        _after(repo, cfg, before, result)
        return result


def _join_branch(repo, remote: str, name: str, theirs: dict[str, str], identities: dict,
                 deleted: list[str]) -> list[BranchJoined]:
    """Join one remote branch; more than one result when another local branch of it conflicts."""
    sha, label = theirs[name], f"{remote}/{name}"
    heads = repo.branches()
    local, other, moved_to = heads.get(name), identities.get(name), None
    if local and name.startswith(PREFIX) and _disjoint(joining.project(repo, name, local), other) \
            and not joining.shares_project_history(repo, local, sha):
        moved_to = scopes.free_branch(scopes.branch_slug(name), [*heads, *theirs])  # two projects, one slug
        repo.rename_branch(name, moved_to, expected=local)
        heads, local = repo.branches(), None
    if local is None and (into := _holding(repo, name, sha, other, heads)):  # joined here before, under another name
        return [BranchJoined(name, AHEAD, heads[into], into=into, moved_to=moved_to)]
    kin = _kin(repo, name, other, heads, theirs, identities)
    target, renamed_from, ours = name, None, local
    if local is None and kin:
        first = kin.pop(0)
        ours = heads[first]
        if joining.shares_project_history(repo, ours, sha):
            target = first  # one history already: the local name was chosen knowing the remote's
        else:
            renamed_from = first
    p = joining.plan(repo, target, ours, sha)
    if p.outcome == CONFLICT:
        return [BranchJoined(name, CONFLICT, ours, p.conflicts, joining.conflict_advice(renamed_from or target, label,
                                                                                         p.conflicts), moved_to=moved_to)]
    if renamed_from:
        repo.rename_branch(renamed_from, name, expected=ours)
    try:
        head = joining.apply(repo, target, p, label)
    except SecretFound as e:
        return [BranchJoined(name, REFUSED, ours, advice=f"{label} was not joined: {e.message}", moved_to=moved_to,
                             renamed_from=renamed_from)]
    results = [BranchJoined(name, RENAMED if renamed_from else p.outcome, head, renamed_from=renamed_from,
                            then=p.outcome if renamed_from else "", moved_to=moved_to,
                            into=target if target != name else None)]
    for k in kin:  # more local branches of the same project: joined in too
        found = _absorb(repo, target, k)
        if found is None:
            deleted.append(k)
        else:
            results.append(found)
    return results


def _absorb(repo, target: str, branch: str) -> BranchJoined | None:
    """Join local `branch` into `target` and delete it; None when done, else the conflict or refusal."""
    heads = repo.branches()
    p = joining.plan(repo, target, heads[target], heads[branch])
    if p.outcome == CONFLICT:
        return BranchJoined(branch, CONFLICT, heads[branch], p.conflicts,
                            joining.conflict_advice(target, branch, p.conflicts))
    try:
        joining.apply(repo, target, p, branch)
    except SecretFound as e:
        return BranchJoined(branch, REFUSED, heads[branch], advice=f"{branch} was not joined into {target}: {e.message}")
    repo.delete_branch(branch, expected=heads[branch], into=target)
    return None


def _kin(repo, name: str, other: scopes.Project | None, heads: dict[str, str], theirs: dict[str, str],
         identities: dict) -> list[str]:
    """The local project branches under another name that share the remote branch's identity (and
    do not belong to a remote branch of their own name)."""
    if not name.startswith(PREFIX) or other is None or not rules.has_identity(other):
        return []
    found = []
    for branch in sorted(heads):
        if branch == name or not branch.startswith(PREFIX):
            continue
        mine = joining.project(repo, branch, heads[branch])
        if mine is None or not rules.overlaps(mine, other):
            continue
        if branch in theirs and identities.get(branch) and rules.overlaps(mine, identities[branch]):
            continue  # the remote has it under its own name: it joins there
        found.append(branch)
    return found


def _holding(repo, name: str, sha: str, other: scopes.Project | None, heads: dict[str, str]) -> str | None:
    """The local project branch of the same identity that already holds commit sha, if any."""
    if not name.startswith(PREFIX) or other is None:
        return None
    for branch in sorted(heads):
        if branch.startswith(PREFIX) and branch != name and repo.is_ancestor(sha, heads[branch]):
            mine = joining.project(repo, branch, heads[branch])
            if mine is not None and rules.overlaps(mine, other):
                return branch
    return None


def _disjoint(mine: scopes.Project | None, other: scopes.Project | None) -> bool:
    """Two projects, each with a known identity, that share none of it."""
    return (mine is not None and other is not None and rules.has_identity(mine) and rules.has_identity(other)
            and not rules.overlaps(mine, other))


def _retire(repo, theirs: dict[str, str]) -> list[str]:
    """Delete the local project branches the other machine merged away: contained, as the remote has
    them too (a fetch that does not prune leaves the remote's old ref), in another local branch of an
    overlapping identity (their sessions are all there)."""
    gone = []
    heads = repo.branches()
    projects = {b: joining.project(repo, b, h) for b, h in heads.items() if b.startswith(PREFIX)}
    for branch in sorted(projects):
        mine = projects[branch]
        if mine is None:
            continue
        for other in sorted(projects):
            if other == branch or other in gone or projects[other] is None or not rules.overlaps(mine, projects[other]):
                continue
            if repo.is_ancestor(heads[branch], heads[other]) and \
                    (branch not in theirs or repo.is_ancestor(theirs[branch], heads[other])):
                repo.delete_branch(branch, expected=heads[branch], into=other)
                gone.append(branch)
                break
    return gone


def _after(repo, cfg: Config, before: dict[str, str], result: Joined) -> None:
    """Regenerate the derived files of what moved (a merge commit touches sessions/, so consolidation
    sees it pending), then re-render the session-start caches and the agents' skills."""
    from memgit.verbs import briefing, consolidate, install, search

    moved = {b for b, h in repo.branches().items() if before.get(b) != h} | set(result.deleted)
    moved |= {b for b in before if b not in repo.branches()}
    if not moved:
        return
    projects = sorted(b for b in moved if b.startswith(PREFIX) and b in repo.branches())
    # A branch under a new name has nothing new to consolidate, but its summary names its branch.
    renamed = sorted({n for b in result.branches for n in (b.moved_to, b.branch if b.renamed_from else None) if n})
    try:
        done = consolidate.run(repo, cfg, branches=renamed, include_global=False, force=True) if renamed else []
        done += consolidate.run(repo, cfg, branches=projects, include_global=MAIN in repo.branches())
    except StorageError:
        raise
    except MemgitError as e:  # the joins are committed; memory catches up at the next sync
        log.error("consolidation after the join failed: %s", e.message)
        result.consolidation_error = e.message
        done = []
    result.consolidated = [c.scope for c in done]
    briefing.refresh(repo, cfg, moved | {c.branch for c in done})
    install.publish_skills(repo, cfg)
    search.refresh_index(repo, cfg)

