"""Creating the memory repository: kill -9 in the middle, several syncs at once on a fresh machine,
and what an older memgit (or `git init`) left half made. Real processes, real git checks."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests import faults
from tests.conftest import age, fsck, git, ledger_commits


def write_sessions(projects, n: int, seed: str = "boot") -> set[str]:
    ids = set()
    for i in range(n):
        w = SessionWriter(session_id(f"{seed}-{i}"), f"/home/demo/dev/{['pinion', 'lantern'][i % 2]}")
        w.user(f"Task {i}: run the tests. Always use pathlib, never os.path.")
        w.bash("uv run pytest -x tests/", f"{i + 3} passed in 0.5s")
        age(w.write(projects), 7200 - i)
        ids.add(f"claude-code/{w.session_id}")
    return ids


def assert_complete(repo, sessions: set[str]) -> None:
    """Every session recorded once, `main` checked out and clean, git fsck --strict clean."""
    rows = ledger_commits(repo)
    assert sorted(r["session"] for r in rows) == sorted(sessions)
    assert git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    assert git(repo, "status", "--porcelain") == ""
    assert git(repo, "log", "--format=%s", "main").splitlines()[-1] == "init(main): create memory repository"
    fsck(repo)
    leftovers = [p.name for p in repo.parent.iterdir() if ".creating-" in p.name]
    assert leftovers == [], leftovers


def test_kill_9_while_the_first_sync_creates_the_repo_never_leaves_a_half_made_one(hermetic_env, claude_projects,
                                                                                  memory_path):
    sessions = write_sessions(claude_projects, 3)
    env = faults.memgit_env(hermetic_env)
    data = memory_path.parent
    hits = 0
    for attempt in range(8):
        proc = subprocess.Popen([sys.executable, "-m", "memgit.cli.commands", "sync"], env=env, cwd=hermetic_env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        # Kill it the moment the repository starts to exist (its .creating- directory appears):
        # the window between `.git` and `main` that used to leave a repository `init` refused.
        while proc.poll() is None and time.monotonic() < deadline:
            if data.is_dir() and any(".creating-" in p.name for p in data.iterdir()):
                proc.send_signal(signal.SIGKILL)
                hits += 1
                break
            time.sleep(0.0005)
        proc.wait(timeout=60)
        # Whatever the instant, the path holds no repository or a whole one, never a half-made one.
        if (memory_path / ".git").exists():  # the kill came too late (a busy machine): try again
            assert git(memory_path, "rev-parse", "--verify", "main").strip()
            fsck(memory_path)
            shutil.rmtree(memory_path)
        if hits >= 3:
            break
    assert hits >= 1, "no kill landed while the repository was being created"
    result = faults.memgit(hermetic_env, "sync")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert_complete(memory_path, sessions)


def test_a_repo_an_older_memgit_left_half_made_is_redone_by_sync_and_by_init(hermetic_env, claude_projects,
                                                                             memory_path):
    """What a kill -9 between `.git` and `main` left before: no ref, a ref lock, dulwich's probe file."""
    sessions = write_sessions(claude_projects, 2)
    for command in (("sync",), ("init",)):
        memory_path.mkdir(parents=True)
        git(memory_path, "init", "-q", "-b", "main")
        (memory_path / ".probe-permissions").write_text("")
        (memory_path / ".git" / "refs" / "heads" / "main.lock").write_text("")
        status = faults.memgit(hermetic_env, "status")
        assert status.returncode == 3 and status.stderr.startswith("Error: no memory repository at ")
        result = faults.memgit(hermetic_env, *command)
        assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
        assert not (memory_path / ".probe-permissions").exists()
        fsck(memory_path)
        if command == ("sync",):
            assert_complete(memory_path, sessions)
            shutil.rmtree(memory_path)
    assert git(memory_path, "log", "--format=%s", "main").strip() == "init(main): create memory repository"
    again = faults.memgit(hermetic_env, "init")
    faults.assert_one_error_line(again, "already holds a repository")


def test_a_git_repository_with_refs_or_a_directory_with_files_is_refused_not_cleared(hermetic_env, memory_path):
    memory_path.mkdir(parents=True)
    (memory_path / "mine.txt").write_text("a person's file\n")
    faults.assert_one_error_line(faults.memgit(hermetic_env, "sync"), "is not an empty directory")
    (memory_path / "mine.txt").unlink()
    git(memory_path, "init", "-q", "-b", "trunk")
    git(memory_path, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m", "theirs")
    faults.assert_one_error_line(faults.memgit(hermetic_env, "sync"), "git repository without a branch main")
    assert git(memory_path, "log", "--format=%s", "trunk").strip() == "theirs"


# A sync that has imported everything and waits for the go file: the runs start within a millisecond.
AT_ONCE = """
import os, sys, time
from memgit.cli.commands import main
while not os.path.exists(sys.argv[1]):
    time.sleep(0.0005)
sys.argv = ["memgit", "sync", "--json"]
main()
"""


def test_syncs_started_at_once_on_a_fresh_machine_all_succeed(hermetic_env, claude_projects, memory_path, tmp_path):
    sessions = write_sessions(claude_projects, 4)
    env = faults.memgit_env(hermetic_env)
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", AT_ONCE, str(go)], env=env, cwd=hermetic_env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(6)]
    time.sleep(2.5)  # every child imported memgit and waits
    go.touch()
    outputs = [p.communicate(timeout=120) for p in procs]
    for proc, (out, err) in zip(procs, outputs):
        assert proc.returncode == 0 and "Traceback" not in err, err
    assert sum(json.loads(out)["read"] for out, _ in outputs) == len(sessions)  # each read once, by one of them
    assert_complete(memory_path, sessions)


@pytest.mark.parametrize("kind", ["symlink", "empty-dir"])
def test_the_repo_is_created_where_a_symlink_points_or_in_an_empty_directory(hermetic_env, claude_projects,
                                                                            memory_path, tmp_path, kind):
    sessions = write_sessions(claude_projects, 1)
    memory_path.parent.mkdir(parents=True)
    real = tmp_path / "real-memory"
    if kind == "symlink":
        memory_path.symlink_to(real)
    else:
        memory_path.mkdir()
    result = faults.memgit(hermetic_env, "sync")
    assert result.returncode == 0, result.stderr
    if kind == "symlink":
        assert memory_path.is_symlink() and (real / ".git").is_dir()
        assert_complete(real, sessions)
    else:
        assert_complete(memory_path, sessions)
    assert os.listdir(memory_path.parent) == [memory_path.name]
