"""What the project's CI runs reaches what a new session is told, end to end, as the latest session left
the workflow: one session writes it, a later one reads it and changes it; synced by the CLI, the
session-start hook run at the project's cwd tells the later state and not the earlier one."""

from __future__ import annotations

import json

from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests.conftest import age, fsck, git
from tests.integration.test_hooks import additional_context, run_hook

CWD = "/home/memgit-dev/pinion"  # not on this disk: the project is known by its path
WORKFLOW = f"{CWD}/.github/workflows/ci.yml"
FIRST = "name: CI\non:\n  push:\n    branches: [main]\njobs:\n  test:\n    steps:\n    - run: uv run pytest\n"
EARLIER = "CI (`.github/workflows/ci.yml`) runs on pushes to main: `uv run pytest`."
LATER = ("CI (`.github/workflows/ci.yml`) runs on every push to any branch and on every pull request: "
         "`uv run pytest`, `uv run ruff check`.")


def test_the_latest_state_of_the_workflow_is_told_and_the_earlier_one_is_not(claude_projects, memory_path,
                                                                               memgit_cli):
    w = SessionWriter(session_id("ci-first"), CWD)
    w.start = w.start.replace(day=10)
    w.user("Add a GitHub Actions workflow that runs the tests")
    w.tool("Write", {"file_path": WORKFLOW, "content": FIRST}, "File created successfully")
    w.assistant("Added `.github/workflows/ci.yml`: it runs `uv run pytest` on pushes to main.")
    age(w.write(claude_projects), 7200)

    w = SessionWriter(session_id("ci-later"), CWD)
    w.start = w.start.replace(day=12)
    w.user("The CI should run on every push and on pull requests, and lint too")
    w.tool("Read", {"file_path": WORKFLOW}, "\n".join(f"{i:6}→{line}" for i, line in enumerate(FIRST.splitlines(), 1)))
    w.edit(WORKFLOW, "  push:\n    branches: [main]\n", "  push:\n  pull_request:\n")
    w.edit(WORKFLOW, "    - run: uv run pytest\n", "    - run: uv run pytest\n    - run: uv run ruff check\n")
    w.assistant("The workflow now runs on every push and pull request, with `uv run ruff check` after the tests.")
    age(w.write(claude_projects), 3600)

    result = memgit_cli("sync", "--all", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["extracted"] == 2
    fsck(memory_path)
    memory_md = git(memory_path, "show", "projects/pinion:MEMORY.md")
    assert LATER in memory_md and f"~~{EARLIER}~~" in memory_md.partition("## Superseded")[2]
    stdin = json.dumps({"session_id": "x", "cwd": CWD, "hook_event_name": "SessionStart", "source": "startup",
                        "transcript_path": "/x"}).encode()
    told = additional_context(run_hook("session-start", stdin)[0])
    assert LATER in told and EARLIER not in told
