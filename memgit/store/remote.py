"""Pushing the memory repository to a remote (DESIGN §5b). For now: what every push must pass.

A remote keeps what it is given, and a mirror keeps it forever: a history that holds a secret is
not pushed. `memgit push` (a later change) calls `ensure_pushable` before it sends anything.
"""

from __future__ import annotations

from typing import Sequence

from memgit.core.vocab import MAIN, PREFIX
from memgit.errors import SecretFound
from memgit.store import scan as scan_mod

MAX_LISTED = 5


def ensure_pushable(repo, extra_patterns: Sequence[str] = ()) -> None:
    """Refuse to push `repo` (a memgit.store.repo.MemoryRepo) while its history holds a possible secret.

    Raises:
        SecretFound: naming the kind and place of each finding (never the value) and what to do.
    """
    found = [f for f in scan_mod.scan(repo, extra_patterns, caches=False) if f.where not in ("reflog", "config")]
    if not found:
        return
    listed = "; ".join(f.describe() for f in found[:MAX_LISTED])
    more = f" and {len(found) - MAX_LISTED} more" if len(found) > MAX_LISTED else ""
    raise SecretFound(f"refusing to push: the history holds {len(found)} possible secret(s): {listed}{more}. "
                      "Nothing was sent. Remove them from the history first (see `memgit scan --help`)")


def is_memgit_branch(branch: str) -> bool:
    """The branches memgit pushes, pulls and clones: main and projects/*."""
    return branch == MAIN or branch.startswith(PREFIX)


def remote_heads(repo, remote: str) -> dict[str, str]:
    """The memgit branches as last fetched from `remote`: {branch: sha} from refs/remotes/<remote>/*.

    No network: what the last fetch (or `git fetch`) left in the repository.
    """
    prefix = f"refs/remotes/{remote}/"
    return {ref[len(prefix):]: sha for ref, sha in repo.refs().items()
            if ref.startswith(prefix) and is_memgit_branch(ref[len(prefix):])}
