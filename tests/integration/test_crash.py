"""kill -9 at random points: the repo stays valid and the next sync converges to the same memory."""

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests.conftest import age, fsck, git, ledger_commits

ROOT = Path(__file__).resolve().parents[2]


def write_sessions(projects: Path, n: int = 12) -> None:
    for i in range(n):
        cwd = f"/home/demo/dev/{['pinion', 'lantern', 'quill'][i % 3]}"
        w = SessionWriter(session_id(f"crash-{i}"), cwd)
        w.user(f"Task {i}: make the importer handle empty rows. Always use pathlib, never os.path.")
        w.bash("uv run pytest -x tests/", "E   AssertionError: empty row\nFAILED tests/test_import.py", error=True)
        w.edit(f"{cwd}/src/importer.py", "rows = read()", "rows = [r for r in read() if r]")
        w.bash("uv run pytest -x tests/", f"{10 + i} passed in 0.5s")
        w.user("Thanks, that works.")
        age(w.write(projects), 7200 - i)


def memgit_env(home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "MEMGIT_", "CLAUDE_", "CODEX_", "GEMINI_", "XDG_"))}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"), XDG_CONFIG_HOME=str(home / "config"),
               GIT_CONFIG_NOSYSTEM="1", PYTHONPATH=str(ROOT))
    return env


def sync(home: Path, *, kill_after: float | None = None) -> int | None:
    proc = subprocess.Popen([sys.executable, "-m", "memgit.entry", "sync"], env=memgit_env(home),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if kill_after is None:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
        return 0
    time.sleep(kill_after)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    return proc.returncode


def memory_state(repo: Path) -> tuple:
    """What the memory holds: every branch's tree, and each session's ranges and outcomes."""
    trees = {}
    for line in git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads").split():
        trees[line] = git(repo, "ls-tree", "-r", line)
    ranges = sorted((r["session"], r["kind"], r["range"]) for r in ledger_commits(repo))
    return trees, ranges


def test_killing_sync_twenty_times_converges_to_an_uninterrupted_run(tmp_path):
    calm, crashy, empty = tmp_path / "calm", tmp_path / "crashy", tmp_path / "empty"
    for home in (calm, crashy):
        write_sessions(home / ".claude" / "projects", n=120)
    (empty / ".claude" / "projects").mkdir(parents=True)

    started = time.monotonic()
    sync(empty)
    startup = time.monotonic() - started  # interpreter, imports, repo creation
    started = time.monotonic()
    sync(calm)
    work = max(time.monotonic() - started - startup, 0.05)

    total = len(ledger_commits(calm / "data" / "memgit"))
    rng = random.Random(20261121)
    progress, window, done = [], work / 20, 0
    for _ in range(20):
        # Aim inside the work: each run is killed after a little of what is left, and the window
        # adapts to what the last kill let through (the machine may be busy or idle).
        # A kill landing early costs one round; one landing late (the machine got quicker than when
        # `startup` was measured) may finish the work and leave nothing to interrupt: aim early.
        sync(crashy, kill_after=startup * 0.6 + rng.uniform(0, window))
        repo = crashy / "data" / "memgit"
        if (repo / ".git").exists():
            fsck(repo)
            now_done = len(ledger_commits(repo))
            progress.append(now_done)
            gained, done = now_done - done, now_done
            window *= 0.6 if gained > total / 12 else 1.4 if gained == 0 else 1.0
            # Commits are published in batches (half a second of work each): a kill gains a batch or
            # nothing. Never aim past what is left, or the next kill lands after the end of the work.
            window = min(window, max(work * (total - done) / total, 0.05))
        else:  # killed before the repository was made (the empty run's start-up undercounts a busy one's)
            startup *= 1.3
    sync(crashy)

    interrupted = [n for n in progress if n < total]
    assert len(interrupted) >= 10, f"kills did not land inside the work: {progress} of {total}"

    calm_repo, crashy_repo = calm / "data" / "memgit", crashy / "data" / "memgit"
    fsck(crashy_repo)
    calm_trees, calm_ranges = memory_state(calm_repo)
    crashy_trees, crashy_ranges = memory_state(crashy_repo)
    failed = [(r["session"], r["reason"]) for r in ledger_commits(crashy_repo) if r["kind"] == "fail"]
    assert not failed, f"a kill left a session that then failed: {failed}"
    assert crashy_ranges == calm_ranges  # same sessions, same ranges: nothing extracted twice
    assert crashy_trees == calm_trees  # same notes, byte for byte
    assert git(crashy_repo, "status", "--porcelain") == ""


def test_a_ref_lock_a_kill_left_on_a_project_not_yet_created_delays_its_sessions_but_fails_none(tmp_path):
    """A run killed while creating a project's branch leaves refs/heads/projects/<slug>.lock; the next
    run, started at once, waits for the lock to go stale instead of failing that project's sessions."""
    (tmp_path / ".claude" / "projects").mkdir(parents=True)
    sync(tmp_path)  # the repository, without the project
    write_sessions(tmp_path / ".claude" / "projects", n=3)
    repo = tmp_path / "data" / "memgit"
    lock = repo / ".git" / "refs" / "heads" / "projects" / "quill.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_bytes(b"")
    sync(tmp_path)
    failed = [(r["session"], r["reason"]) for r in ledger_commits(repo) if r["kind"] == "fail"]
    assert not failed
    assert "PROJECT.md" in git(repo, "ls-tree", "--name-only", "projects/quill") and not lock.exists()
    fsck(repo)
