"""A repository whose main branch is `master` says so in what a new session is told, end to end: sessions
on `master` and on a feature branch, synced by the CLI; after the repository is renamed to `main` (a later
session on `main`), the line is gone."""

from __future__ import annotations

import json

from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests.conftest import age, fsck
from tests.integration.test_hooks import additional_context, run_hook

CWD = "/home/memgit-dev/lantern"  # not on this disk: the project is known by its path
TOLD = "Main branch: `master` (not `main`)"


def _session(claude_projects, name: str, branch: str, day: int, seconds_ago: int) -> None:
    w = SessionWriter(session_id(name), CWD, git_branch=branch)
    w.start = w.start.replace(day=day)
    w.user(f"Fix the parser's handling of empty lines ({name})")
    w.edit(f"{CWD}/parser.py", "if line:", "if line.strip():")
    w.bash("uv run pytest -q", "12 passed in 0.40s")
    w.assistant("Fixed; `uv run pytest -q` passes.")
    age(w.write(claude_projects), seconds_ago)


def _told() -> str:
    stdin = json.dumps({"session_id": "x", "cwd": CWD, "hook_event_name": "SessionStart", "source": "startup",
                        "transcript_path": "/x"}).encode()
    return additional_context(run_hook("session-start", stdin)[0])


def test_a_master_trunk_is_told_until_a_later_session_works_on_main(claude_projects, memory_path, memgit_cli):
    _session(claude_projects, "on-master", "master", 10, 9000)
    _session(claude_projects, "on-feature", "feat/empty-lines", 11, 8000)
    assert memgit_cli("sync", "--all").exit_code == 0
    fsck(memory_path)
    assert TOLD in _told()
    _session(claude_projects, "on-main", "main", 12, 7000)  # the repository's branch was renamed
    assert memgit_cli("sync", "--all").exit_code == 0
    assert "Main branch" not in _told()
