"""Objects read at once by `git cat-file --batch` (memgit.store.blobs, memgit.store.objects) are the
objects dulwich reads one by one: a fetch's scan sees the same files, trees and commits either way."""

from __future__ import annotations

import shutil

import pytest

from memgit.resources import repo_template_files
from memgit.store.blobs import BATCH, read_objects
from memgit.store.objects import stored_objects
from memgit.store.repo import DEFAULT_AUTHOR, MemoryRepo

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def test_a_batch_read_by_git_is_what_dulwich_reads(memory_path):
    with MemoryRepo.init(memory_path, repo_template_files(), author=DEFAULT_AUTHOR) as repo:
        files = {f"sessions/2026/{m:02d}/note-{i}.md": f"# Note {i}\n\n- [gotcha] port {i} in use\n".encode()
                 for m in (1, 2) for i in range(BATCH)}
        repo.commit("main", files, "extract(main): notes\n")
        store = repo._repo.object_store
        shas = sorted(sha for sha in store)
        assert len(shas) > BATCH
        at_once = list(stored_objects(store, shas, git_dir=repo.git_dir))
        one_by_one = list(stored_objects(store, shas))
        assert at_once == one_by_one
        assert {o.kind for o in at_once} == {"blob", "tree", "commit"}
        assert read_objects(repo.git_dir, ["0" * 40]) is None  # one it lacks: the caller reads its own way
