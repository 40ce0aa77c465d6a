"""A branch rebuilt on another machine's purged history (`memgit pull` after a remote purge): this
machine's own commits replayed on top of the remote's new head, then the branch moved once.

Objects first, the ref last: a crash leaves the branch on its old history, whole.
"""

from __future__ import annotations

import os
from collections.abc import Iterable


def own_commits(repo, head: str, exclude: Iterable[str]) -> list[str]:
    """The commits reachable from head and from none of `exclude` (those this store has), oldest first."""
    raw = repo._repo
    stop = [sha.encode() for sha in exclude if sha and sha.encode() in raw.object_store]
    walker = raw.get_walker(include=[head.encode()], exclude=stop, order="topo")
    return [entry.commit.id.decode() for entry in walker][::-1]


def replay(repo, branch: str, onto: str, commits: Iterable[str]) -> tuple[str, int]:
    """Commits of this machine rebuilt on `onto` (merges and purges left out): each one's changes
    (against its first parent) applied on top, its message, author and dates kept, through the gate like every commit. A commit
    whose changes are all there already is left out; an empty one (a ledger commit) is kept.
    Only objects are written: the caller moves the branch. Returns (new head, commits replayed).

    Raises:
        SecretFound: a commit holds a possible secret; nothing the caller sees has moved.
    """
    from dulwich.object_store import commit_tree_changes

    from memgit.store.gate import gate_commit
    from memgit.store.objects import Staging, lookup, tree_diff

    from memgit.core.ledger import PURGE, parse_subject

    staging = Staging(repo._objects)
    head, done = onto.encode(), 0
    for sha in commits:
        c = staging[sha.encode()]
        if len(c.parents) > 1 or (parse_subject(c.message.decode("utf-8", "replace")) or ("",))[0] == PURGE:
            continue  # a merge joined what is replayed or on the remote already; a purge of its own is superseded
        base = staging[c.parents[0]].tree if c.parents else None
        tree = staging[head].tree
        edits, files = [], {}
        for path, _, new in tree_diff(staging, base, c.tree):
            if lookup(staging, tree, path) != new:
                edits.append((path, *(new or (None, None))))
                if new is not None:
                    files[os.fsdecode(path)] = staging[new[1]].data
        if base != c.tree and not edits:
            continue  # everything it changed is there already
        message = gate_commit(repo.gate, files, c.message.decode("utf-8", "surrogateescape"), branch,
                              repo.extra_patterns)
        new = c.copy()
        new.parents = [head]
        new.tree = commit_tree_changes(staging, staging[tree], edits) if edits else tree
        new.message = message.encode("utf-8", "surrogateescape")
        new.gpgsig = None
        staging.add_object(new)
        head, done = new.id, done + 1
    staging.flush()
    return head.decode(), done


def move_branch(repo, branch: str, old: str, new: str) -> None:
    """Move a branch to a commit that need not descend from its head (a rebuilt history), by
    compare-and-swap; the checked-out worktree follows.

    Raises:
        ConflictError: the branch moved meanwhile.
    """
    repo._publish(branch, old.encode(), new.encode(), f"pull: rebuilt on a purged history at {new}")
