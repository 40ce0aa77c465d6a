"""Sync at its edges: CLAUDE_CONFIG_DIR, a held lock, a bad config, a failed session retried."""

import json
import subprocess
import sys
import time

from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests.conftest import ROOT, age, git, ledger_commits


def one_session(projects, seed="edge"):
    w = SessionWriter(session_id(seed), "/home/demo/dev/pinion")
    w.user("Add caching. Always use functools.cache, never a hand-rolled dict.")
    w.bash("uv run pytest", "7 passed in 0.3s")
    path = w.write(projects)
    age(path)
    return w, path


def test_claude_config_dir_moves_where_transcripts_are_read(hermetic_env, monkeypatch, memgit_cli):
    other = hermetic_env / "elsewhere"
    one_session(other / "projects")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(other))
    data = json.loads(memgit_cli("sync", "--json").stdout)
    assert data["extracted"] == 1


def hold_lock(memory_path, seconds: float) -> subprocess.Popen:
    """Another process holding the sync lock for `seconds` (returns once it holds it)."""
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; from pathlib import Path; from memgit.store.lock import sync_lock\n"
         "with sync_lock(Path(sys.argv[1]), wait=False):\n    print('held', flush=True); time.sleep(float(sys.argv[2]))",
         str(memory_path / ".git" / "memgit"), str(seconds)],
        stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert holder.stdout.readline().strip() == "held"
    return holder


def test_a_held_lock_is_reported_with_no_wait_and_in_json(claude_projects, memory_path, memgit_cli):
    one_session(claude_projects)
    memgit_cli("init")
    holder = hold_lock(memory_path, 30)
    try:
        result = memgit_cli("sync", "--no-wait", "--json")
        assert result.exit_code == 9
        error = json.loads(result.stdout)["error"]
        assert error["code"] == "lock_held" and str(holder.pid) in error["message"]
        text = memgit_cli("sync", "--no-wait")
        assert text.exit_code == 9 and text.stderr.startswith("Error: another memgit sync is running")
        assert ledger_commits(memory_path) == []
    finally:
        holder.kill()
        holder.wait()


def test_a_second_sync_waits_for_the_first_and_then_runs(claude_projects, memory_path, memgit_cli):
    one_session(claude_projects)
    memgit_cli("init")
    holder = hold_lock(memory_path, 1.5)
    started = time.monotonic()
    result = memgit_cli("sync", "--json")
    holder.wait()
    assert result.exit_code == 0
    assert json.loads(result.stdout)["waited"] is True and json.loads(result.stdout)["extracted"] == 1
    assert time.monotonic() - started > 0.5


def test_a_bad_config_file_is_one_clear_error(hermetic_env, memgit_cli):
    config = hermetic_env / ".config" / "memgit" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[repo\npath = 1\n")
    result = memgit_cli("sync")
    assert result.exit_code == 4
    assert result.stderr.startswith("Error: cannot read ") and str(config) in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_failed_session_is_recorded_and_retried_with_retry_failed(claude_projects, memory_path, memgit_cli,
                                                                    monkeypatch):
    from memgit.extract import heuristic

    w, path = one_session(claude_projects, "flaky")
    real = heuristic.extract

    def broken(transcript, *, project):
        raise RuntimeError("extractor crashed")

    monkeypatch.setattr(heuristic, "extract", broken)
    data = json.loads(memgit_cli("sync", "--json").stdout)
    assert data["failed"] == 1
    [row] = ledger_commits(memory_path)
    assert row["kind"] == "fail" and "extractor crashed" in row["reason"]
    assert "extractor crashed" in (memory_path / ".git" / "memgit" / "sync.log").read_text()
    monkeypatch.setattr(heuristic, "extract", real)
    assert json.loads(memgit_cli("sync", "--json").stdout)["read"] == 0  # recorded: not retried by itself
    status = json.loads(memgit_cli("status", "--json").stdout)
    assert status["totals"]["failed"] == 1
    retried = json.loads(memgit_cli("sync", "--retry-failed", "--json").stdout)
    assert retried["extracted"] == 1
    assert "functools.cache" in memgit_cli("show", w.session_id[:8]).stdout
    assert json.loads(memgit_cli("status", "--json").stdout)["totals"]["failed"] == 0


def test_an_internal_error_on_one_session_is_a_fail_and_the_others_go_on(claude_projects, memory_path, memgit_cli):
    good, _ = one_session(claude_projects, "fine")
    bad = claude_projects / "-home-demo-dev-pinion" / f"{session_id('bad')}.jsonl"
    # A user record whose message is a number: odd input must not stop the run.
    bad.write_text(json.dumps({"type": "user", "cwd": "/home/demo/dev/pinion", "sessionId": "x",
                               "timestamp": "2026-11-20T10:00:00Z", "message": 42}) + "\n")
    age(bad)
    data = json.loads(memgit_cli("sync", "--json").stdout)
    assert data["read"] == 2 and data["extracted"] == 1
    assert git(memory_path, "fsck", "--strict") == ""
