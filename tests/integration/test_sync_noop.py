"""A sync with nothing new is answered from the record the last such run left (memgit.verbs.sync_noop),
and only then: whatever changed since (a transcript, a memory folder, a ref, the configuration, the
clock) goes through the whole pipeline, which reads it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from memgit import config
from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from memgit.verbs import sync_noop
from tests.conftest import ROOT, age, all_refs, git, ledger_commits
from tests.integration.test_sync import write_demo
from tests.integration.test_sync_edges import hold_lock, one_session


def memgit(*args: str, **env: str) -> subprocess.CompletedProcess:
    """`memgit ARGS` as the console script runs it (memgit.entry), in a fresh process."""
    probe = f"import sys\nsys.argv = ['memgit', *{list(args)!r}]\nfrom memgit.entry import main\nmain()\n"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **env})
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def record(memory_path):
    return memory_path / ".git" / "memgit" / sync_noop.FILE


def answered(memory_path, **kw):
    return sync_noop.answer(config.load(), now=kw.get("now", time.time()))


@pytest.fixture
def synced(claude_projects, memory_path, memgit_cli):
    """The demo sessions read, and a second run that found nothing new (its answer recorded)."""
    paths = write_demo(claude_projects)
    assert memgit_cli("sync").exit_code == 0
    quiet = memgit_cli("sync")
    assert quiet.exit_code == 0 and record(memory_path).is_file()
    return paths, quiet.stdout


def test_nothing_new_is_said_as_the_whole_pipeline_says_it(synced, memory_path, memgit_cli):
    paths, full_text = synced
    refs = all_refs(memory_path)
    assert answered(memory_path) is not None
    assert memgit("sync").stdout == full_text
    assert memgit("sync", "--no-wait").stdout == full_text
    assert json.loads(memgit("sync", "--json").stdout) == json.loads(memgit_cli("sync", "--json").stdout)
    assert all_refs(memory_path) == refs


def test_a_grown_transcript_is_read(synced, memory_path):
    paths, _ = synced
    writer = SessionWriter(session_id("grown"), "/home/demo/dev/pinion")
    writer.user("Also: never vendor dependencies, add them to pyproject.toml.")
    with open(paths[0], "a", encoding="utf-8") as f:
        f.write(writer.lines())
    age(paths[0])
    assert answered(memory_path) is None
    before = len(ledger_commits(memory_path))
    said = memgit("sync").stdout
    assert "commits 0" not in said and len(ledger_commits(memory_path)) == before + 1
    assert answered(memory_path) is None  # it committed: no record until a run finds nothing again
    memgit("sync")
    assert answered(memory_path) is not None


def test_a_new_transcript_and_a_new_memory_file_are_read(synced, claude_projects, memory_path):
    writer = SessionWriter(session_id("new-one"), "/home/demo/dev/lantern")
    writer.user("Use ruff for linting; never flake8.")
    age(writer.write(claude_projects))
    assert answered(memory_path) is None
    memgit("sync")
    assert f"claude-code/{writer.session_id}" in {r["session"] for r in ledger_commits(memory_path)}

    memgit("sync")
    assert answered(memory_path) is not None
    folder = next(claude_projects.iterdir()) / "memory"
    folder.mkdir()
    (folder / "MEMORY.md").write_text("- the staging database is reset every night\n")
    assert answered(memory_path) is None
    assert "imported Claude Code memory" in memgit("sync").stdout


def test_a_session_becoming_idle_ends_the_record(synced, claude_projects, memory_path):
    writer = SessionWriter(session_id("still-running"), "/home/demo/dev/pinion")
    writer.user("Keep the changelog in CHANGES.md, not in the README.")
    path = writer.write(claude_projects)  # written just now: not idle, not read
    assert answered(memory_path) is None  # a file the record has not seen
    assert memgit("sync").stdout == synced[1]  # nothing to read yet
    now = time.time()
    assert answered(memory_path, now=now) is not None
    idle = config.load().min_idle_minutes * 60
    assert answered(memory_path, now=path.stat().st_mtime + idle) is None  # it would be read then
    age(path)
    memgit("sync")
    assert f"claude-code/{writer.session_id}" in {r["session"] for r in ledger_commits(memory_path)}


def test_a_moved_ref_a_changed_setting_or_a_held_lock_is_the_pipelines(synced, memory_path, monkeypatch):
    assert answered(memory_path) is not None
    monkeypatch.setenv("MEMGIT_MAX_AGE_DAYS", "90")
    assert answered(memory_path) is None
    monkeypatch.delenv("MEMGIT_MAX_AGE_DAYS")

    holder = hold_lock(memory_path, 30)
    try:
        assert answered(memory_path) is None  # a sync is running: the full run waits for it (or refuses)
    finally:
        holder.kill()
        holder.wait()
    assert answered(memory_path) is not None

    git(memory_path, "-c", "user.name=p", "-c", "user.email=p@x", "commit", "--allow-empty", "-qm", "by hand")
    assert answered(memory_path) is None
    memgit("sync")  # the pipeline sees the person's commit, and finds nothing else to do
    assert answered(memory_path) is not None
    record(memory_path).unlink()  # derived: deleting it costs one full run
    assert answered(memory_path) is None


def test_a_crash_after_a_commit_is_caught_up_and_a_failed_session_retried(synced, claude_projects, memory_path,
                                                                          memgit_cli, monkeypatch):
    from memgit.extract import heuristic

    real = heuristic.extract
    writer, _ = one_session(claude_projects, "flaky")

    def broken(transcript, *, project):
        raise RuntimeError("extractor crashed")

    monkeypatch.setattr(heuristic, "extract", broken)
    assert json.loads(memgit_cli("sync", "--json").stdout)["failed"] == 1
    settled = memory_path / ".git" / "memgit" / "settled.json"
    settled.unlink()  # as a kill between the fail commit and consolidation leaves it
    assert answered(memory_path) is None
    monkeypatch.setattr(heuristic, "extract", real)
    assert memgit("sync").stdout == memgit_cli("sync").stdout  # caught up by the pipeline, then recorded
    assert settled.is_file() and answered(memory_path) is not None

    retried = json.loads(memgit("sync", "--retry-failed", "--json").stdout)  # never answered from the record
    assert retried["extracted"] == 1
    rows = [r["kind"] for r in ledger_commits(memory_path) if r["session"] == f"claude-code/{writer.session_id}"]
    assert rows == ["extract", "fail"]  # newest first


def test_sessions_too_old_are_counted_as_the_pipeline_counts_them(synced, claude_projects, memory_path, memgit_cli):
    writer = SessionWriter(session_id("ancient"), "/home/demo/dev/quill")
    writer.user("Release from the release branch only.")
    age(writer.write(claude_projects), 90 * 86400)
    full = memgit_cli("sync").stdout
    assert full.startswith("1 session(s) are older than 30 days")
    assert memgit("sync").stdout == full and answered(memory_path).too_old == 1


def test_a_run_with_anything_else_to_say_leaves_no_record(synced, memory_path):
    from memgit.verbs.sync_result import SyncResult

    cfg = config.load()
    witness = {"files": "as they were"}
    assert sync_noop.record(cfg, witness, SyncResult(str(memory_path), warnings=["a folder could not be read"]),
                            now=time.time(), until=float("inf")) is False
    assert not record(memory_path).exists()  # the record before it is gone too
    assert sync_noop.record(cfg, None, SyncResult(str(memory_path)), now=time.time(), until=float("inf")) is False
    assert sync_noop.record(cfg, witness, SyncResult(str(memory_path)), now=time.time(), until=float("inf"))


def test_an_edit_of_memgits_own_code_ends_the_record(synced, memory_path):
    # an editable install's new index schema or cache format is work a sync with nothing new still does
    module = os.path.join(os.path.dirname(sync_noop.__file__), "sync_noop.py")
    before = os.stat(module)
    assert answered(memory_path) is not None
    try:
        os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
        assert answered(memory_path) is None
    finally:
        os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert answered(memory_path) is not None
