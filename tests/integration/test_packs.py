"""Objects go into packs, not one file each: after a sync `git count-objects -v` stays small, a batch's
commits are published together (one pack, then the refs), a kill -9 at any step of that converges,
`memgit gc` packs an older repository, and an extract commit is authored when its session ended."""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from datetime import datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from memgit.cli.commands import cli
from memgit.core.notes import parse_note
from memgit.store import packs
from memgit.store.repo import MemoryRepo
from tests.conftest import fsck, git, ledger_commits, point_home, unpack
from tests.integration.test_crash import write_sessions

AUTHOR = "memgit <memgit@localhost>"


def counts(repo: Path) -> dict[str, int]:
    """`git count-objects -v` as {"count": loose objects, "packs": ..., ...}."""
    return {k: int(v) for k, v in (line.split(": ") for line in git(repo, "count-objects", "-v").splitlines())}


@pytest.fixture(scope="module")
def synced(tmp_path_factory):
    """36 generated sessions of three projects, synced once; the time the sync started."""
    home = tmp_path_factory.mktemp("packs-home")
    write_sessions(home / ".claude" / "projects", n=36)
    with pytest.MonkeyPatch.context() as mp:
        point_home(mp, home, data="data", config="config")
        started = int(time.time())
        result = CliRunner().invoke(cli, ["sync", "--json"], catch_exceptions=False)
        assert result.exit_code == 0, result.output
    return home / "data" / "memgit", started


def test_a_sync_leaves_its_objects_in_a_few_packs_and_fsck_clean(synced):
    repo, _ = synced
    found = counts(repo)
    assert found["count"] <= 3, found  # loose objects: 0 here (1,767 after one real sync before packs)
    assert 1 <= found["packs"] <= packs.MAX_PACKS and found["in-pack"] > 200, found
    assert found["garbage"] == 0, found  # no temporary file left behind
    fsck(repo)
    assert len([r for r in ledger_commits(repo) if r["kind"] == "extract"]) == 36


def test_an_extract_commit_is_authored_when_its_session_ended_and_committed_at_the_sync(synced):
    repo, started = synced
    log = git(repo, "log", "--all", "--grep=^extract(",
              "--format=%at%x1f%ct%x1f%s%x1f%(trailers:key=Memgit-Note,valueonly,separator=)%x1e")
    rows = [record.strip("\n").split("\x1f") for record in log.split("\x1e") if record.strip()]
    assert len(rows) == 36
    for authored, committed, subject, note_path in rows:
        branch = "projects/" + subject[len("extract("):subject.index(")")]
        note = parse_note(git(repo, "show", f"{branch}:{note_path}"))
        assert int(authored) == int(datetime.fromisoformat(note.ended).timestamp()), subject
        assert int(committed) >= started > int(authored)  # `git log` shows when the session happened
    consolidation = git(repo, "log", "-1", "--format=%at %ct", "main").split()
    assert consolidation[0] == consolidation[1]  # memgit's own commits: authored and committed now


def test_memgit_gc_packs_an_older_repository_and_changes_nothing_it_holds(synced, tmp_path, memgit_cli):
    repo = tmp_path / "old"
    shutil.copytree(synced[0], repo)
    unpack(repo)  # as a memgit before packs left it: one file per object
    (repo / ".git" / "objects" / "pack" / "tmp_pack_x1").write_bytes(b"half a pack a kill left")
    os.utime(repo / ".git" / "objects" / "pack" / "tmp_pack_x1", (0, 0))
    before = counts(repo)
    history = git(repo, "log", "--all", "--format=%H %T")
    assert before["count"] > 200 and before["packs"] == 0
    result = memgit_cli("gc", "--repo", str(repo), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["packed"] == before["count"] and data["after"] == {"loose": 0, "packs": 1}
    after = counts(repo)
    assert (after["count"], after["packs"], after["garbage"]) == (0, 1, 0)
    assert git(repo, "log", "--all", "--format=%H %T") == history
    fsck(repo)
    again = memgit_cli("gc", "--repo", str(repo))
    assert again.exit_code == 0 and again.stdout.startswith("nothing to pack: 0 loose object(s), 1 pack(s)")


# ---- batches, in the store --------------------------------------------------------------------------


@pytest.fixture
def mem(tmp_path):
    with MemoryRepo.init(tmp_path / "mem", {"README.md": b"memory\n"}, author=AUTHOR) as r:
        for slug in ("a", "b"):
            r.commit(f"projects/{slug}", {"PROJECT.md": slug.encode()}, f"project({slug}): created", create_from="main")
        yield r


def note(branch: str, i: int) -> tuple[dict, str]:
    return {f"sessions/2026/11/{branch.rsplit('/', 1)[-1]}-{i}.md": f"note {i}\n".encode()}, f"extract({branch}): {i}"


def test_a_batch_is_read_at_once_here_and_published_together_in_one_pack(mem):
    packs_before = counts(mem.path)["packs"]
    heads = {b: git(mem.path, "rev-parse", b).strip() for b in ("main", "projects/a")}
    with mem.batch():
        for i in range(3):
            for branch in ("main", "projects/a"):
                mem.commit_with_retry(branch, lambda head, b=branch, i=i: note(b, i), allow_empty=True)
        assert mem.read("projects/a", "sessions/2026/11/a-2.md") == b"note 2\n"  # this process sees them
        assert mem.branches()["projects/a"] == mem.head("projects/a") != heads["projects/a"]
        assert {b: git(mem.path, "rev-parse", b).strip() for b in heads} == heads  # git does not, yet
        assert not (mem.path / "sessions" / "2026" / "11" / "main-0.md").exists()
    assert counts(mem.path)["packs"] == packs_before + 1 and counts(mem.path)["count"] == 0
    assert git(mem.path, "rev-list", "--count", f"{heads['projects/a']}..projects/a").strip() == "3"
    assert (mem.path / "sessions" / "2026" / "11" / "main-2.md").read_bytes() == b"note 2\n"  # worktree followed
    assert git(mem.path, "status", "--porcelain") == ""
    assert "3 commits, the last: extract(main): 2" in git(mem.path, "reflog", "-1", "--format=%gs", "main")
    fsck(mem.path)


def test_walking_history_in_a_batch_reads_its_commits_without_publishing_them(mem):
    # Consolidation walks each branch after its commit: reading the batch there, rather than
    # publishing it first, saves a pack and its fsyncs per branch.
    heads = {b: git(mem.path, "rev-parse", b).strip() for b in ("main", "projects/a")}
    packs_before = counts(mem.path)["packs"]
    with mem.batch():
        for i in range(2):
            mem.commit_with_retry("projects/a", lambda head, i=i: note("projects/a", i), allow_empty=True)
        walked = [c.message.split("\n", 1)[0] for c in mem.walk("projects/a", limit=3)]
        assert walked[:2] == ["extract(projects/a): 1", "extract(projects/a): 0"]
        assert mem.is_ancestor(heads["projects/a"], "projects/a")
        assert not mem.is_ancestor(mem.head("projects/a"), heads["projects/a"])
        assert {b: git(mem.path, "rev-parse", b).strip() for b in heads} == heads  # nothing published yet
        assert counts(mem.path)["packs"] == packs_before
    assert git(mem.path, "log", "-2", "--format=%s", "projects/a").split("\n")[:2] == walked[:2]
    fsck(mem.path)


def test_a_branch_another_process_moved_during_a_batch_gets_the_batch_commits_on_top(mem):
    with mem.batch():
        mem.commit_with_retry("projects/a", lambda head: note("projects/a", 1), allow_empty=True)
        with MemoryRepo.open(mem.path, author=AUTHOR) as other:  # e.g. `memgit remember` meanwhile
            other.commit("projects/a", {"notes/mine.md": b"a person's note\n"}, "remember(a): mine")
    files = git(mem.path, "ls-tree", "-r", "--name-only", "projects/a").split()
    assert "notes/mine.md" in files and "sessions/2026/11/a-1.md" in files
    assert git(mem.path, "log", "-2", "--format=%s", "projects/a").split("\n")[:2] == [
        "extract(projects/a): 1", "remember(a): mine"]
    fsck(mem.path)


def test_a_batch_left_by_an_exception_still_publishes_what_was_committed(mem):
    with pytest.raises(KeyboardInterrupt), mem.batch():
        mem.commit_with_retry("projects/a", lambda head: note("projects/a", 1), allow_empty=True)
        raise KeyboardInterrupt
    assert "sessions/2026/11/a-1.md" in git(mem.path, "ls-tree", "-r", "--name-only", "projects/a")


def test_small_packs_are_merged_when_they_pile_up(mem):
    for i in range(12):  # single commits, outside a batch: a pack each
        mem.commit("projects/a", *note("projects/a", i))
    assert counts(mem.path)["packs"] > packs.MAX_PACKS
    files = git(mem.path, "ls-tree", "-r", "projects/a")
    assert mem.compact_packs() >= 2
    assert counts(mem.path)["packs"] <= packs.MAX_PACKS
    assert mem.read("projects/a", "sessions/2026/11/a-0.md") == b"note 0\n"  # still read by this process
    assert git(mem.path, "ls-tree", "-r", "projects/a") == files
    fsck(mem.path)


def test_geometric_merging_leaves_each_pack_twice_the_smaller_ones():
    assert packs.geometric([10, 20, 40, 80]) == 0  # already geometric: nothing rewritten
    assert packs.geometric([1, 1, 1, 1, 1000]) == 4  # the small ones, never the big one
    assert packs.geometric([5] * 7) == 7
    assert packs.geometric([1, 100]) == 0


def _kill_at(step: int) -> None:
    """From here on, SIGKILL this process at its `step`-th fsync, rename or replace."""
    calls = [0]

    def fatal(real):
        def wrapped(*args, **kwargs):
            calls[0] += 1
            if calls[0] == step:
                os.kill(os.getpid(), signal.SIGKILL)
            return real(*args, **kwargs)
        return wrapped

    os.fsync, os.rename, os.replace = fatal(os.fsync), fatal(os.rename), fatal(os.replace)


def _batch(path: Path, kill_step: int | None) -> None:
    with MemoryRepo.open(path, author=AUTHOR) as r, r.batch():
        for i in range(2):
            for branch in ("main", "projects/a", "projects/b"):  # main is checked out: its worktree follows
                r.commit_with_retry(branch, lambda head, b=branch, i=i: note(b, i), allow_empty=True)
        if kill_step is not None:
            _kill_at(kill_step)  # every file system step of the flush: pack, index, renames, refs, worktree


def test_a_kill_at_every_step_of_publishing_a_batch_converges(mem, tmp_path):
    branches = ("main", "projects/a", "projects/b")
    calm = tmp_path / "calm"
    shutil.copytree(mem.path, calm)
    _batch(calm, None)
    with MemoryRepo.open(calm, author=AUTHOR) as done:
        expected = {b: done.files(b) for b in branches}
    base = tmp_path / "base"
    shutil.copytree(mem.path, base)
    step = 0
    while True:
        step += 1
        work = tmp_path / f"kill-{step}"
        shutil.copytree(base, work)
        pid = os.fork()
        if pid == 0:  # the child: make the batch and die at the step
            code = 3
            try:
                _batch(work, step)
                code = 0
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        killed = os.WIFSIGNALED(status)
        assert killed or os.WEXITSTATUS(status) == 0, f"the batch failed at step {step}"
        fsck(work)  # valid at every step
        for lock in (work / ".git").rglob("*.lock"):  # the next run comes later: a killed writer's lock is stale
            os.utime(lock, (time.time() - 60, time.time() - 60))
        with MemoryRepo.open(work, author=AUTHOR) as again:  # the next run: recovers the worktree, redoes what is missing
            assert again.record_edits() is None, git(work, "status", "--porcelain")
            for branch in branches:
                for i in range(2):
                    path, content = next(iter(note(branch, i)[0].items()))
                    if again.read(branch, path) != content:
                        again.commit_with_retry(branch, lambda head, b=branch, i=i: note(b, i), allow_empty=True)
            assert {b: again.files(b) for b in branches} == expected, f"step {step}"
        assert git(work, "status", "--porcelain") == ""
        if not killed:
            break
    assert step > 8  # the kills landed on every step of the pack, its index and each branch's move
