"""Transcripts that cannot be read never stop a sync: an unreadable file, an unreadable project
folder, a file deleted (or its symlink broken) between listing and reading. The real CLI in a child
process, real files and permissions (see tests/faults.py for how root is made to obey them)."""

from __future__ import annotations

import json
import os

import pytest

from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests import faults
from tests.conftest import age, fsck, git, ledger_commits
from tests.fake_llm import FakeLLM, Reply
from tests.integration.test_llm_sync import NOTE


@pytest.fixture
def drop():
    """A preexec_fn making permission bits bind the child (None when they bind already)."""
    try:
        return faults.unprivileged()
    except RuntimeError as e:
        pytest.skip(f"permissions cannot be made to bind here: {e}")


def write(projects, seed: str, cwd: str = "/home/demo/dev/pinion", *, idle: float = 7200):
    w = SessionWriter(session_id(seed), cwd)
    w.user(f"{seed}: make the importer skip empty rows. Always use pathlib, never os.path.")
    w.bash("uv run pytest -x tests/", "E   AssertionError: empty row", error=True)
    w.bash("uv run pytest -x tests/", "12 passed in 0.5s")
    path = w.write(projects)
    age(path, idle)
    return w, path


def sessions_of(repo, kind: str) -> set[str]:
    return {r["session"] for r in ledger_commits(repo) if r["kind"] == kind}


def test_an_unreadable_transcript_is_a_recorded_fail_and_the_sessions_after_it_are_read(
        hermetic_env, claude_projects, memory_path, drop):
    home = hermetic_env
    bad, bad_path = write(claude_projects, "locked", idle=9000)  # the oldest: read first
    good = [write(claude_projects, f"fine-{i}", idle=7200 - i)[0] for i in range(3)]
    bad_path.chmod(0)

    for _ in range(2):  # recording the failure must not fail, this run or the next
        result = faults.memgit(home, "sync", preexec=drop)
        assert result.returncode == 0 and "Traceback" not in result.stderr + result.stdout, result.stderr
    assert sessions_of(memory_path, "extract") == {f"claude-code/{w.session_id}" for w in good}
    [fail] = [r for r in ledger_commits(memory_path) if r["kind"] == "fail"]
    assert fail["session"] == f"claude-code/{bad.session_id}" and "Permission denied" in fail["reason"]
    assert "--retry-failed" in fail["reason"]
    fsck(memory_path)

    status = json.loads(faults.memgit(home, "status", "--json", preexec=drop).stdout)
    [failed] = status["failed_sessions"]
    assert failed["session"] == f"claude-code/{bad.session_id}" and "Permission denied" in failed["reason"]
    assert failed["project_dir"] == "-home-demo-dev-pinion"
    text = faults.memgit(home, "status", preexec=drop).stdout
    assert "failed sessions" in text and "Permission denied" in text

    bad_path.chmod(0o644)  # fixed: the retry reads it
    retried = json.loads(faults.memgit(home, "sync", "--retry-failed", "--json", preexec=drop).stdout)
    assert retried["extracted"] == 1 and retried["failed"] == 0
    assert f"claude-code/{bad.session_id}" in sessions_of(memory_path, "extract")
    assert json.loads(faults.memgit(home, "status", "--json").stdout)["failed_sessions"] == []
    fsck(memory_path)


def test_the_first_sync_names_the_unreadable_transcript(hermetic_env, claude_projects, memory_path, drop):
    bad, bad_path = write(claude_projects, "locked")
    write(claude_projects, "fine", idle=7000)
    bad_path.chmod(0)
    result = faults.memgit(hermetic_env, "sync", preexec=drop)
    assert result.returncode == 0, result.stderr
    assert (f"failed claude-code/{bad.session_id}: cannot read transcript {bad.session_id}.jsonl: "
            "Permission denied; once it is readable, run `memgit sync --retry-failed`") in result.stdout
    assert "read 2, extracted 1, skipped 0, failed 1" in result.stdout


def test_an_unreadable_project_folder_is_shown_and_the_other_folders_are_read(
        hermetic_env, claude_projects, memory_path, drop):
    home = hermetic_env
    locked, _ = write(claude_projects, "hidden", cwd="/home/demo/dev/secret")
    fine, _ = write(claude_projects, "shown", cwd="/home/demo/dev/pinion")
    folder = claude_projects / "-home-demo-dev-secret"
    folder.chmod(0)
    try:
        result = faults.memgit(home, "sync", preexec=drop)
        assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
        assert "unreadable claude-code folder -home-demo-dev-secret: Permission denied" in result.stdout
        assert sessions_of(memory_path, "extract") == {f"claude-code/{fine.session_id}"}
        fsck(memory_path)

        status = json.loads(faults.memgit(home, "status", "--json", preexec=drop).stdout)
        assert status["unreadable_folders"] == [{"agent": "claude-code", "project_dir": "-home-demo-dev-secret",
                                                "reason": "Permission denied"}]
        text = faults.memgit(home, "status", preexec=drop)
        assert text.returncode == 0 and "unreadable project folders" in text.stdout
        assert "-home-demo-dev-secret: Permission denied" in text.stdout

        folder.chmod(0o644)  # listable, not searchable: its files still cannot be read
        status = json.loads(faults.memgit(home, "status", "--json", preexec=drop).stdout)
        assert status["unreadable_folders"] == [{"agent": "claude-code", "project_dir": "-home-demo-dev-secret",
                                                "reason": "Permission denied"}]
    finally:
        folder.chmod(0o755)
    data = json.loads(faults.memgit(home, "sync", "--json").stdout)  # fixed: read at the next sync
    assert data["extracted"] == 1 and data["unreadable_folders"] == []
    assert f"claude-code/{locked.session_id}" in sessions_of(memory_path, "extract")


class _Vanishing(FakeLLM):
    """A model server that, when the first session's extraction arrives, removes other transcripts:
    memgit has listed them already and reads them only after this answer (one session at a time)."""

    def __init__(self, remove):
        super().__init__(default=Reply.json(NOTE))
        self.remove, self.removed = remove, False

    def take(self, request: dict):
        if not self.removed:
            self.removed = True
            self.remove()
        return super().take(request)


def test_a_transcript_deleted_or_its_symlink_broken_after_listing_is_skipped(hermetic_env, claude_projects,
                                                                           memory_path, tmp_path):
    first, _ = write(claude_projects, "first", idle=9000)
    target = tmp_path / "elsewhere.jsonl"
    linked, linked_path = write(claude_projects, "linked", idle=8000)
    os.replace(linked_path, target)
    linked_path.symlink_to(target)
    age(linked_path, 8000)
    deleted, deleted_path = write(claude_projects, "deleted", idle=7500)
    last, _ = write(claude_projects, "last", idle=7000)

    def remove():
        target.unlink()  # the symlink now points nowhere
        deleted_path.unlink()

    with _Vanishing(remove) as srv:
        env = faults.memgit_env(hermetic_env, OPENAI_API_KEY="sk-fake", MEMGIT_CONCURRENCY="1",
                                MEMGIT_CONSOLIDATE_MODEL="heuristic")
        result = faults.memgit(hermetic_env, "sync", "--json", "--model", "openai/fake-model",
                               "--api-base", srv.api_base, env=env)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    data = json.loads(result.stdout)
    assert srv.removed and data["extracted"] == 2 and data["gone"] == 2 and data["failed"] == 0
    gone = {r["session"]: r["reason"] for r in data["sessions"] if r["kind"] == "gone"}
    assert set(gone) == {f"claude-code/{linked.session_id}", f"claude-code/{deleted.session_id}"}
    assert all(" is gone: No such file or directory" in reason for reason in gone.values())
    assert sessions_of(memory_path, "extract") == {f"claude-code/{first.session_id}", f"claude-code/{last.session_id}"}
    assert sessions_of(memory_path, "fail") == set()  # nothing to retry: nothing recorded
    fsck(memory_path)
    assert git(memory_path, "status", "--porcelain") == ""
