"""`memgit uninstall --purge`: delete the memory repository, only one memgit created."""

from __future__ import annotations

import shutil
from pathlib import Path

from memgit.core.vocab import PREFIX
from memgit.errors import MemgitError


def describe_repo(repo_path: Path) -> str | None:
    """Say what --purge would delete; None when there is no repository there.

    Raises:
        MemgitError: the path holds a git repository memgit did not create (purge deletes only its own).
    """
    from memgit.store.repo import MemoryRepo

    if not (repo_path / ".git").is_dir():
        return None
    with MemoryRepo.open(repo_path) as repo:
        branches = repo.branches()
        try:
            root = next(repo.walk(repo.root(), limit=1))
        except (MemgitError, StopIteration):
            root = None
    if root is None or not root.message.startswith("init("):
        raise MemgitError(f"{repo_path} is a git repository memgit did not create; delete it by hand if you mean to")
    projects = sum(1 for b in branches if b.startswith(PREFIX))
    return f"{repo_path} ({projects} project branch{'es' if projects != 1 else ''} and main)"


def purge(repo_path: Path) -> None:
    """Delete the memory repository (the caller confirmed it, after describe_repo).

    Raises:
        MemgitError: it could not be deleted completely.
    """
    try:
        shutil.rmtree(repo_path)
    except OSError as e:
        raise MemgitError(f"could not delete all of {repo_path}: {e}") from e
