"""MemoryRepo on real temporary repositories, cross-checked with the git CLI."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from memgit.errors import ConflictError, MemgitError, NotARepo, SecretFound
from memgit.store.repo import INIT_MESSAGE, MemoryRepo
from tests.conftest import ROOT, fsck, git

AUTHOR = "memgit test <memgit-test@localhost>"
SKELETON = {
    "README.md": b"# Memory\n",
    "MEMORY.md": b"# Topics\n\nline one\nline two\nline three\n",
    "memory_summary.md": b"summary\n",
    "notes/2026-11-20-pinned.md": b"pinned note\n",
}


@pytest.fixture
def repo(tmp_path):
    with MemoryRepo.init(tmp_path / "mem", SKELETON, author=AUTHOR) as r:
        yield r


def status(r: MemoryRepo) -> str:
    return git(r.path, "status", "--porcelain", "--untracked-files=all")


def object_files(r: MemoryRepo) -> set[str]:
    """Every file of the object store: loose objects and packs."""
    objects = r.path / ".git" / "objects"
    return {str(f.relative_to(objects)) for f in objects.rglob("*") if f.is_file()}


def run_child(code: str, *args: str, stdout=None) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), *args], env=env, stdout=stdout)


# -- init / open --------------------------------------------------------------------------


def test_init_creates_a_clean_checked_out_main(repo):
    assert status(repo) == ""
    assert repo.checked_out() == "main"
    assert list(repo.branches()) == ["main"]
    log = git(repo.path, "log", "--format=%an <%ae>|%cn <%ce>|%s").splitlines()
    assert log == [f"{AUTHOR}|{AUTHOR}|{INIT_MESSAGE}"]
    assert (repo.path / "notes" / "2026-11-20-pinned.md").read_bytes() == b"pinned note\n"
    assert git(repo.path, "config", "core.fsync").strip() == "committed"
    assert repo.root() == repo.head("main")
    fsck(repo.path)


def test_init_refuses_an_existing_repo_or_a_non_empty_directory(repo, tmp_path):
    with pytest.raises(MemgitError, match="already holds a memgit repository"):
        MemoryRepo.init(repo.path, {}, author=AUTHOR)
    other = tmp_path / "stuff"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    with pytest.raises(MemgitError, match="not an empty directory"):
        MemoryRepo.init(other, {}, author=AUTHOR)
    assert (other / "keep.txt").read_text() == "mine"


def test_open_refuses_a_directory_that_is_not_a_repo(tmp_path):
    with pytest.raises(NotARepo):
        MemoryRepo.open(tmp_path)
    with pytest.raises(NotARepo):
        MemoryRepo.open(tmp_path / "missing")


def test_import_does_not_pull_in_porcelain():
    out = subprocess.run(
        [sys.executable, "-c", "import sys, memgit.store.repo; print(sorted(m for m in sys.modules "
         "if m in ('dulwich.porcelain', 'dulwich.merge')))"],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert out.stdout.strip() == "[]"


# -- commit -------------------------------------------------------------------------------


def test_commit_to_another_branch_leaves_worktree_and_index_alone(repo):
    index = repo.path / ".git" / "index"
    before = index.stat().st_mtime_ns
    sha = repo.commit("projects/foo", {"PROJECT.md": b"name: foo\n"}, "init(projects/foo): create", create_from=repo.root())
    assert index.stat().st_mtime_ns == before
    assert not (repo.path / "PROJECT.md").exists()
    assert status(repo) == ""
    assert git(repo.path, "show", "projects/foo:PROJECT.md") == "name: foo\n"
    assert git(repo.path, "rev-parse", "projects/foo").strip() == sha
    assert repo.head("projects/foo") == sha
    assert git(repo.path, "reflog", "-1", "--format=%gs", "projects/foo").strip() == "memgit: init(projects/foo): create"


def test_commit_refuses_to_create_an_orphan_branch(repo):
    with pytest.raises(MemgitError, match="does not exist"):
        repo.commit("projects/nope", {"a.md": b"a"}, "x")
    assert "projects/nope" not in repo.branches()


def test_commit_to_checked_out_branch_moves_worktree_and_index(repo):
    repo.commit(
        "main",
        {"sessions/2026/11/a.md": b"note a\n", "MEMORY.md": b"# Topics\n\nrewritten\n",
         "notes/2026-11-20-pinned.md": None},
        "extract(main): a",
    )  # fmt: skip
    assert status(repo) == ""
    assert (repo.path / "sessions/2026/11/a.md").read_bytes() == b"note a\n"
    assert (repo.path / "MEMORY.md").read_bytes() == b"# Topics\n\nrewritten\n"
    assert not (repo.path / "notes").exists()  # emptied directories go, as with git
    assert git(repo.path, "diff", "HEAD", "--stat") == ""
    assert not (repo.path / ".git" / "memgit" / "worktree.json").exists()
    fsck(repo.path)


def test_hand_edit_is_kept_then_recorded(repo):
    memory = repo.path / "MEMORY.md"
    memory.write_bytes(b"# Topics\n\nmy own words\n")
    repo.commit("main", {"MEMORY.md": b"# Topics\n\nmemgit's words\n", "x.md": b"x\n"}, "consolidate(main): x")
    assert memory.read_bytes() == b"# Topics\n\nmy own words\n"
    assert (repo.path / "x.md").read_bytes() == b"x\n"
    assert "MEMORY.md" in status(repo) and "x.md" not in status(repo)

    sha = repo.record_edits()
    assert sha == repo.head("main")
    assert git(repo.path, "log", "-1", "--format=%s").strip() == "edit(main): 1 file(s) changed by hand"
    assert git(repo.path, "show", "HEAD:MEMORY.md") == "# Topics\n\nmy own words\n"
    assert status(repo) == ""
    assert repo.record_edits() is None


def test_record_edits_records_modified_deleted_and_new_files(repo):
    assert repo.record_edits() is None
    (repo.path / ".gitignore").write_text("*.tmp\ncache/\n")
    (repo.path / "README.md").write_text("changed\n")
    (repo.path / "memory_summary.md").unlink()
    (repo.path / "notes" / "new.md").write_text("new\n")
    (repo.path / "scratch.tmp").write_text("ignored\n")
    (repo.path / "cache").mkdir()
    (repo.path / "cache" / "big.md").write_text("ignored\n")
    sha = repo.record_edits()
    stat = git(repo.path, "show", "--stat", "--format=%s%n%b", sha)
    assert "edit(main): 4 file(s) changed by hand" in stat
    for line in ("changed: README.md", "deleted: memory_summary.md", "added: notes/new.md", "added: .gitignore"):
        assert line in stat
    assert "scratch.tmp" not in stat and "cache/" not in stat
    assert repo.changed_paths(sha) == [".gitignore", "README.md", "memory_summary.md", "notes/new.md"]
    assert git(repo.path, "status", "--porcelain") == ""  # ignored files stay ignored
    assert repo.record_edits() is None
    fsck(repo.path)


def test_record_edits_counts_staged_changes(repo):
    (repo.path / "staged.md").write_text("staged\n")
    git(repo.path, "add", "staged.md")
    git(repo.path, "rm", "-q", "README.md")
    sha = repo.record_edits()
    assert repo.changed_paths(sha) == ["README.md", "staged.md"]
    assert status(repo) == ""


def test_record_edits_goes_through_the_gate(repo):
    def gate(files):
        if any(b"sk-live" in data for data in files.values()):
            raise SecretFound("a secret in a file")

    repo.gate = gate
    (repo.path / "README.md").write_text("token sk-live-123\n")
    before = repo.head("main")
    with pytest.raises(SecretFound):
        repo.record_edits()
    assert repo.head("main") == before


def test_a_file_holding_a_secret_is_left_out_of_recorded_edits_and_reported(repo):
    key = "ghp_" + "Zx9Qw3Er7Ty1Ui5Op2As6Df0Gh4Jk8Lm3Nb7V"[:36]  # built here: no real-looking secret in the file
    (repo.path / "notes").mkdir(exist_ok=True)
    (repo.path / "notes" / "creds.md").write_text(f"deploy with\ntoken = {key}\n")
    (repo.path / "notes" / "todo.md").write_text("Prefer small pull requests.\n")
    sha = repo.record_edits()
    assert repo.changed_paths(sha) == ["notes/todo.md"]
    assert repo.refused_edits == {"notes/creds.md": "github_token in line 2"}
    assert key not in git(repo.path, "log", "-p", "--all")
    assert (repo.path / "notes" / "creds.md").exists()  # left for the person to fix, reported again
    assert repo.record_edits() is None and "notes/creds.md" in repo.refused_edits


def test_stale_expected_head_raises_conflict(repo):
    with MemoryRepo.open(repo.path, author=AUTHOR) as other:
        seen = other.head("main")
        repo.commit("main", {"a.md": b"a"}, "extract(main): a")
        with pytest.raises(ConflictError, match="moved"):
            other.commit("main", {"b.md": b"b"}, "extract(main): b", expected=seen)
    repo.commit("projects/new", {"a.md": b"a"}, "x", expected=None, create_from=repo.root())
    with pytest.raises(ConflictError):  # expected=None: "the branch does not exist yet"
        repo.commit("projects/new", {"b.md": b"b"}, "x", expected=None, create_from=repo.root())


def test_lost_race_on_a_locked_ref_is_a_conflict(repo):
    lock = repo.path / ".git" / "refs" / "heads" / "main.lock"
    lock.write_text("")
    with pytest.raises(ConflictError):
        repo.commit("main", {"a.md": b"a"}, "x")
    assert status(repo) == ""
    old = time.time() - 60  # a lock this old was left by a crash: cleared, the retry wins
    os.utime(lock, (old, old))
    sha = repo.commit_with_retry("main", lambda head: ({"a.md": b"a"}, "x"))
    assert repo.head("main") == sha and not lock.exists()


def test_commit_with_retry_loses_nothing_across_processes(repo):
    code = """
        import sys
        from pathlib import Path
        from memgit.store.repo import MemoryRepo
        def build(head):
            lines = r.read(head, "shared.md") or b""
            return {"shared.md": lines + f"{sys.argv[2]}-{i}\\n".encode()}, f"extract(main): {sys.argv[2]}-{i}"
        with MemoryRepo.open(Path(sys.argv[1]), author="w <w@localhost>") as r:
            for i in range(25):
                r.commit_with_retry("main", build, attempts=200)
    """
    children = [run_child(code, str(repo.path), f"w{n}") for n in range(4)]
    assert [c.wait(timeout=120) for c in children] == [0, 0, 0, 0]
    lines = repo.read("main", "shared.md").decode().splitlines()
    assert sorted(lines) == sorted(f"w{n}-{i}" for n in range(4) for i in range(25))
    assert len(list(repo.walk("main"))) == 101
    assert (repo.path / "shared.md").read_bytes() == repo.read("main", "shared.md")
    assert status(repo) == ""
    fsck(repo.path)


def test_gate_refusal_writes_no_object(repo):
    seen = []

    def gate(files):
        seen.append(dict(files))
        if b"AKIA" in files["notes/leak.md"]:
            raise SecretFound("aws key in notes/leak.md")

    repo.gate = gate
    before = object_files(repo)
    with pytest.raises(SecretFound):
        repo.commit("main", {"notes/leak.md": b"AKIAIOSFODNN7EXAMPLE\n"}, "extract(main): leak")
    assert object_files(repo) == before
    assert seen == [{"notes/leak.md": b"AKIAIOSFODNN7EXAMPLE\n", "<commit message>": b"extract(main): leak\n",
                     "<branch name>": b"main", "<file names>": b"notes/leak.md"}]
    assert status(repo) == ""


def test_empty_files_are_files(repo):
    sha = repo.commit("main", {"empty.md": b""}, "x")
    assert repo.read(sha, "empty.md") == b"" and (repo.path / "empty.md").read_bytes() == b""
    assert status(repo) == ""


def test_exists_at_answers_as_exists_for_every_path_of_a_rev(repo):
    sha = repo.commit("main", {"sessions/2026/11/a.md": b"a\n", "notes/b.md": b"b\n"}, "x")
    paths = ["sessions/2026/11/a.md", "/sessions/2026/11/a.md", "sessions/2026/11", "sessions", "notes/b.md",
             "notes/c.md", "README.md", "sessions/2026/11/a.md/x", "", "missing/deeper/file.md"]
    for rev in (sha, "main", "HEAD", sha[:10], "0" * 40, "no-such-branch"):
        exists = repo.exists_at(rev)
        assert [exists(p) for p in paths] == [repo.exists(rev, p) for p in paths], rev


def test_commit_that_changes_nothing_writes_nothing_unless_allowed(repo):
    head = repo.head("main")
    before = object_files(repo)
    assert repo.commit("main", {"README.md": SKELETON["README.md"], "absent.md": None}, "x") == head
    assert object_files(repo) == before
    message = "skip(main): nothing to keep\n\nMemgit-Session: s1\nMemgit-Outcome: skipped\n"
    sha = repo.commit("main", {}, message, allow_empty=True)
    assert sha != head and repo.changed_paths(sha) == []
    assert git(repo.path, "log", "-1", "--format=%(trailers:key=Memgit-Outcome,valueonly)").strip() == "skipped"
    assert status(repo) == ""


# -- revert -------------------------------------------------------------------------------


def test_revert_restores_the_parent_content(repo):
    target = repo.commit("main", {"MEMORY.md": b"# Topics\n\nline one\nCHANGED\nline three\n", "n.md": b"n\n"}, "x")
    repo.commit("main", {"MEMORY.md": b"# Topics\n\nline one\nCHANGED\nline three\nline four\n"}, "y")
    sha = repo.revert("main", target, f"revert(main): x\n\nMemgit-Reverts: {target}\n")
    assert repo.read("main", "MEMORY.md") == b"# Topics\n\nline one\nline two\nline three\nline four\n"
    assert repo.read("main", "n.md") is None
    assert repo.changed_paths(sha) == ["MEMORY.md", "n.md"]
    assert (repo.path / "MEMORY.md").read_bytes() == repo.read("main", "MEMORY.md")
    assert status(repo) == ""
    fsck(repo.path)


def test_revert_conflict_names_the_path_and_commits_nothing(repo):
    target = repo.commit("main", {"MEMORY.md": b"# Topics\n\nline one\nA\nline three\n"}, "x")
    head = repo.commit("main", {"MEMORY.md": b"# Topics\n\nline one\nB\nline three\n"}, "y")
    with pytest.raises(ConflictError, match="MEMORY.md"):
        repo.revert("main", target, "revert(main): x")
    assert repo.head("main") == head
    assert b"<<<<<<<" not in (repo.path / "MEMORY.md").read_bytes()
    with pytest.raises(MemgitError, match="root commit"):
        repo.revert("main", repo.root(), "revert(main): init")


def test_revert_works_on_a_branch_that_is_not_checked_out(repo):
    target = repo.commit("projects/foo", {"a.md": b"a\n"}, "x", create_from=repo.root())
    repo.revert("projects/foo", target, "revert(projects/foo): x")
    assert repo.list("projects/foo") == repo.list(repo.root())
    assert status(repo) == ""


def test_git_cli_reverts_a_memgit_commit(repo):
    target = repo.commit("main", {"sessions/2026/11/a.md": b"a\n"}, "extract(main): a")
    env = ["-c", "user.name=t", "-c", "user.email=t@t"]
    git(repo.path, *env, "revert", "--no-edit", target)
    assert not (repo.path / "sessions").exists()
    assert repo.read("main", "sessions/2026/11/a.md") is None
    assert repo.record_edits() is None
    fsck(repo.path)


# -- reading --------------------------------------------------------------------------------


def test_walk_changed_paths_list_and_read(repo):
    a = repo.commit("main", {"sessions/2026/11/a.md": b"a\n"}, "extract(main): a")
    b = repo.commit("main", {"sessions/2026/12/b.md": b"b\n", "README.md": None}, "extract(main): b")
    infos = list(repo.walk("main"))
    assert [i.sha for i in infos] == [b, a, repo.root()]
    assert infos[0].parents == (a,) and infos[0].message == "extract(main): b\n"
    assert abs(infos[0].time - time.time()) < 60
    assert [i.sha for i in repo.walk("main", stop_at=a)] == [b]
    assert [i.sha for i in repo.walk(b, limit=1)] == [b]
    assert list(repo.walk("projects/none")) == []
    assert repo.changed_paths(b) == ["README.md", "sessions/2026/12/b.md"]
    assert repo.changed_paths(repo.root()) == sorted(SKELETON)
    assert repo.list("main", "sessions") == ["sessions/2026/11/a.md", "sessions/2026/12/b.md"]
    assert repo.list("main", "sessions/2026/11/") == ["sessions/2026/11/a.md"]
    assert repo.list("main", "nothing") == [] and repo.list("nobranch") == []
    assert "README.md" in repo.list(a) and "README.md" not in repo.list("main")
    assert repo.read(a, "README.md") == SKELETON["README.md"]
    assert repo.read("main", "README.md") is None and repo.read("main", "sessions") is None
    assert repo.resolve(a[:10]) == a and repo.resolve("HEAD") == b and repo.resolve("zzz") is None


# -- crashes --------------------------------------------------------------------------------

CRASH_AFTER_REF_MOVE = """
    import os, sys
    from pathlib import Path
    from memgit.store import worktree
    from memgit.store.repo import MemoryRepo
    worktree.Worktree._advance = lambda self, lock, old, new: os._exit(9)   # die holding index.lock
    with MemoryRepo.open(Path(sys.argv[1])) as r:
        r.commit("main", {"MEMORY.md": b"new words\\n", "sessions/2026/11/c.md": b"c\\n"}, "extract(main): c")
"""


def test_open_finishes_a_worktree_update_a_crash_interrupted(repo):
    assert run_child(CRASH_AFTER_REF_MOVE, str(repo.path)).wait(timeout=60) == 9
    assert repo.read("main", "MEMORY.md") == b"new words\n"  # the ref moved...
    assert (repo.path / "MEMORY.md").read_bytes() == SKELETON["MEMORY.md"]  # ...the worktree did not
    assert (repo.path / ".git" / "index.lock").exists()
    assert json.loads((repo.path / ".git" / "memgit" / "worktree.json").read_text())["branch"] == "main"

    with MemoryRepo.open(repo.path) as again:
        assert status(again) == ""
        assert (repo.path / "MEMORY.md").read_bytes() == b"new words\n"
        assert not (repo.path / ".git" / "index.lock").exists()
        assert again.record_edits() is None
    fsck(repo.path)


def test_record_edits_recovers_before_looking(repo):
    assert run_child(CRASH_AFTER_REF_MOVE, str(repo.path)).wait(timeout=60) == 9
    head = repo.head("main")
    assert repo.record_edits() is None  # the stale worktree is not mistaken for an edit
    assert repo.head("main") == head and status(repo) == ""


def test_journal_of_a_commit_that_never_landed_is_dropped(repo):
    journal = repo.path / ".git" / "memgit" / "worktree.json"
    journal.parent.mkdir(exist_ok=True)
    journal.write_text(json.dumps({"branch": "main", "old": repo.head("main"), "new": "0" * 40}))
    with MemoryRepo.open(repo.path) as again:
        assert not journal.exists()
        assert again.record_edits() is None
    assert status(repo) == ""


def test_kill_9_at_random_moments_leaves_a_repairable_repo(repo):
    code = """
        import sys
        from pathlib import Path
        from memgit.errors import ConflictError
        from memgit.store.repo import MemoryRepo
        with MemoryRepo.open(Path(sys.argv[1])) as r:
            print("ready", flush=True)  # the kill is timed from here: a loaded machine is slow to import
            for i in range(10_000):
                def build(head):
                    memory = (r.read(head, "MEMORY.md") or b"") + f"{sys.argv[2]}-{i}\\n".encode()
                    return ({"MEMORY.md": memory, f"sessions/2026/11/{sys.argv[2]}-{i}.md": b"x\\n" * 50,
                             f"sessions/2026/11/{sys.argv[2]}-{i - 3}.md": None}, f"extract(main): {i}")
                try:
                    r.commit_with_retry("main", build)
                except ConflictError:
                    pass  # a ref lock left by the previous kill is cleared once stale
    """
    rng = random.Random(7)
    for round_ in range(10):
        child = run_child(code, str(repo.path), f"r{round_}", stdout=subprocess.PIPE)
        assert child.stdout.readline() == b"ready\n"
        time.sleep(rng.uniform(0.3, 0.8))
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        fsck(repo.path)
        with MemoryRepo.open(repo.path, author=AUTHOR) as again:
            head = again.head("main")
            assert again.record_edits() is None, git(repo.path, "status", "--porcelain")
            assert again.head("main") == head
        assert status(repo) == ""
    assert len(list(repo.walk("main"))) > 10


# -- living with git in the same worktree ----------------------------------------------------


def test_a_persons_staged_change_survives_a_memgit_commit(repo):
    (repo.path / "notes" / "mine.md").write_text("mine\n")
    git(repo.path, "add", "notes/mine.md")
    repo.commit("main", {"sessions/2026/11/a.md": b"a\n"}, "extract(main): a")
    assert status(repo) == "A  notes/mine.md\n"


def test_git_commit_after_memgit_commit_keeps_memgit_files(repo):
    git(repo.path, "read-tree", "HEAD")  # git caches tree ids (TREE extension) in the index
    assert b"TREE" in (repo.path / ".git" / "index").read_bytes()
    repo.commit("main", {"notes/2026-11-20-pinned.md": b"memgit's\n"}, "remember(main): x")
    (repo.path / "README.md").write_text("by hand\n")
    git(repo.path, "-c", "user.name=p", "-c", "user.email=p@p", "commit", "-qam", "by hand")
    assert git(repo.path, "show", "HEAD:notes/2026-11-20-pinned.md") == "memgit's\n"  # no stale cache
    assert status(repo) == ""
    fsck(repo.path)


def test_index_v4_is_kept_in_sync(repo):
    git(repo.path, "update-index", "--index-version", "4")
    repo.commit("main", {"sessions/2026/11/a.md": b"a\n", "README.md": b"new\n"}, "extract(main): a")
    assert status(repo) == ""
    repo.commit("main", {"sessions/2026/11/b.md": b"b\n"}, "extract(main): b")
    assert status(repo) == ""


def test_index_locked_by_git_fails_before_the_ref_moves(repo, monkeypatch):
    from memgit.store import worktree

    monkeypatch.setattr(worktree, "_INDEX_LOCK_WAIT", 0.1)
    head = repo.head("main")
    (repo.path / ".git" / "index.lock").write_bytes(b"")
    with pytest.raises(MemgitError, match="index.lock exists"):
        repo.commit("main", {"a.md": b"a"}, "x")
    assert repo.head("main") == head
    assert not (repo.path / ".git" / "memgit" / "worktree.json").exists()
    assert (repo.path / ".git" / "index.lock").exists()  # not ours: left alone


def test_history_follows_merges_and_is_ancestor(repo):
    base = repo.head("main")
    a = repo.commit("main", {"a.md": b"a\n"}, "extract(main): a")
    git(repo.path, "branch", "other", base)
    other = repo.commit("other", {"o.md": b"o\n"}, "extract(main): o")
    env = ["-c", "user.name=t", "-c", "user.email=t@t"]
    git(repo.path, *env, "merge", "-q", "--no-edit", "other")
    merge = repo.head("main")
    assert {i.sha for i in repo.history("main", exclude=a)} == {merge, other}
    assert [i.sha for i in repo.walk("main", stop_at=a)] == [merge]
    assert repo.is_ancestor(a, "main") and repo.is_ancestor(other, "main")
    assert not repo.is_ancestor("main", a) and not repo.is_ancestor("nope", "main")
    assert repo.root() == base
    with MemoryRepo.open(repo.path) as again:  # from the cache file this time
        assert again.root() == base


def test_a_corrupt_index_stops_commits_to_the_checked_out_branch_only(repo):
    (repo.path / ".git" / "index").write_bytes(b"DIRC\0\0\0\2\0\0\0\5garbage")
    head = repo.head("main")
    with pytest.raises(MemgitError, match="corrupt"):
        repo.commit("main", {"a.md": b"a"}, "x")
    assert repo.head("main") == head
    repo.commit("projects/foo", {"a.md": b"a"}, "x", create_from=head)


def test_a_ref_lock_left_by_a_killed_writer_delays_the_next_commit_but_does_not_fail_it(tmp_path):
    import time as clock

    from memgit.store.repo import MemoryRepo

    with MemoryRepo.init(tmp_path / "m", {"README.md": b"x\n"}, author="memgit <memgit@localhost>") as repo:
        root = repo.root()
        repo.commit("projects/a", {"a.md": b"1\n"}, "init(a): project a\n", create_from=root)
        lock = tmp_path / "m" / ".git" / "refs" / "heads" / "projects" / "a.lock"
        lock.write_bytes(b"")  # as a writer killed between taking the lock and renaming it leaves it
        started = clock.monotonic()
        sha = repo.commit_with_retry("projects/a", lambda head: ({"b.md": b"2\n"}, "edit(a): b\n"))
        assert repo.head("projects/a") == sha and not lock.exists()
        assert clock.monotonic() - started < 6
