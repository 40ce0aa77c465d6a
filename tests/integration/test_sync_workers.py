"""A first sync of many sessions reads and extracts them in worker processes: the memory is the one a
sync of one session at a time writes, byte for byte, and the workers end with the run."""

import os
import subprocess
import sys

import pytest

from tests.conftest import fsck, git
from tests.integration.test_crash import memgit_env, memory_state, write_sessions

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or (os.cpu_count() or 1) < 2,
                                reason="workers are forked processes, on two cores or more")


def run_sync(home, concurrency: str) -> str:
    env = {**memgit_env(home), "MEMGIT_CONCURRENCY": concurrency}
    done = subprocess.run([sys.executable, "-m", "memgit.entry", "sync", "--all"], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_workers_write_the_memory_one_at_a_time_writes(tmp_path):
    one, many = tmp_path / "one", tmp_path / "many"
    for home in (one, many):
        write_sessions(home / ".claude" / "projects", n=24)
    run_sync(one, "1")
    out = run_sync(many, "4")
    assert "read 24, extracted 24" in out
    repo_one, repo_many = one / "data" / "memgit", many / "data" / "memgit"
    assert memory_state(repo_many) == memory_state(repo_one)  # every branch's tree, every session's range
    log = (repo_many / ".git" / "memgit" / "sync.log").read_text()
    assert "24 sessions read and extracted by" in log
    one_log = repo_one / ".git" / "memgit" / "sync.log"
    assert not one_log.exists() or "worker processes" not in one_log.read_text()  # concurrency 1: none
    fsck(repo_many)
    subjects = git(repo_many, "log", "--all", "--format=%s")
    assert subjects.count("extract(") == 24
    assert run_sync(many, "4").startswith("read 0, extracted 0")  # every session recorded as read
