"""A hook the person's setup runs after every edit reaches what a new session is told, end to end: two
Claude Code sessions whose records report `uv run ruff format` after their edits (one in each of the
harness's record forms), synced by the CLI, and the session-start hook run at the project's cwd."""

from __future__ import annotations

import json

from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests.conftest import age, fsck, git
from tests.integration.test_hooks import additional_context, run_hook

CWD = "/home/memgit-dev/pinion"  # not on this disk: the project is known by its path
TOLD = "A hook runs `uv run ruff format` after every file edit the agent makes here."


def test_a_formatter_hook_seen_in_two_sessions_is_in_the_briefing_and_its_text_is_nowhere(
        claude_projects, memory_path, memgit_cli):
    for i, task in enumerate(["Rename the sync flag to --dry-run in cli.py", "Add a --verbose flag to sync"]):
        w = SessionWriter(session_id(f"format-hook-{i}"), CWD)
        w.start = w.start.replace(day=10 + i)
        w.user(task).edit(f"{CWD}/cli.py", "--test", "--dry-run")
        w.hook("PostToolUse:Edit", "uv run ruff format", progress=bool(i))
        w.bash("uv run pytest -x tests/", "18 passed in 2.31s")
        w.assistant("Renamed it; `uv run pytest -x tests/` passes.")
        age(w.write(claude_projects), 7200 - 60 * i)
    result = memgit_cli("sync", "--all", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["extracted"] == 2
    fsck(memory_path)
    memory_md = git(memory_path, "show", "projects/pinion:MEMORY.md")
    assert f"- [fact] {TOLD} — 2 sessions" in memory_md
    stdin = json.dumps({"session_id": "x", "cwd": CWD, "hook_event_name": "SessionStart", "source": "startup",
                        "transcript_path": "/x"}).encode()
    told = additional_context(run_hook("session-start", stdin)[0])
    assert TOLD in told
    everything = git(memory_path, "log", "--all", "-p")
    assert "completed successfully" not in everything and "hook_progress" not in everything
