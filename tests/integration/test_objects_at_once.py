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


def test_the_files_a_fetch_kept_are_read_as_the_repository_holds_them_and_each_once(memory_path, monkeypatch):
    from memgit.store import blobs

    with MemoryRepo.init(memory_path, repo_template_files(), author=DEFAULT_AUTHOR) as repo:
        files = {f"sessions/2026/01/note-{i}.md": f"# Note {i}\n\n- [fact] port {i}\n".encode()
                 for i in range(3 * BATCH)}
        head = repo.commit("main", files, "extract(main): notes\n")
        ids = set(repo.blobs(head, "sessions").values())
        expected = blobs.read_blobs(repo, ids)  # by git
        assert sorted(expected.values()) == sorted(files.values())
        asked = []
        real = blobs.read_objects
        monkeypatch.setattr(blobs, "read_objects",
                            lambda git_dir, wanted: asked.append(set(wanted)) or real(git_dir, wanted))
        kept = dict(sorted(expected.items())[:BATCH])
        blobs.arrived(kept)  # as a fetch keeps what it took in and scanned
        assert blobs.read_blobs(repo, ids) == expected
        assert asked == [ids - kept.keys()]  # the kept ones were not read again
        assert blobs.read_blobs(repo, set(kept)) == kept and len(asked) == 2  # each handed out once
        monkeypatch.setattr(blobs, "ARRIVED_BYTES", 100)
        blobs.arrived(kept)  # too big to keep: read again
        assert blobs.read_blobs(repo, set(kept)) == kept and len(asked) == 3


def test_a_fetch_larger_than_the_cap_is_not_held_in_memory(monkeypatch):
    from memgit.store import blobs, incoming
    from memgit.store.objects import StoredObject

    monkeypatch.setattr(blobs, "ARRIVED_BYTES", 10)
    files: dict[str, bytes] = {}
    passed = list(incoming._files_kept(iter([StoredObject("a", "blob", b"12345"), StoredObject("t", "tree", b"x"),
                                             StoredObject("b", "blob", b"67890"),
                                             StoredObject("c", "blob", b"!")]), files))
    assert [o.sha for o in passed] == ["a", "t", "b", "c"]  # the scan still sees every object
    assert files == {}  # past the cap nothing is kept, not even what came before it
    few: dict[str, bytes] = {}
    list(incoming._files_kept(iter([StoredObject("a", "blob", b"12345")]), few))
    assert few == {"a": b"12345"}
