"""Destructive commands (`forget`, `projects merge`, `uninstall`) ask first; with nobody to ask (no
terminal, or --json) they refuse unless --yes: exit 2, one line, nothing changed."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys

import pytest

from tests import faults
from tests.conftest import age, all_refs, git
from tests.integration import test_hooks

world = test_hooks.world  # a synced project `pinion` whose session taught "Don't put emoji in commit messages"


@pytest.fixture
def two_projects(world, tmp_path, claude_projects, memgit_cli):
    """The world, and a second project `cog` synced beside it."""
    cog = test_hooks.make_git_project(tmp_path / "dev" / "cog", "git@github.com:acme/cog.git")
    age(test_hooks.project_session(cog, "cog-world").write(claude_projects))
    assert memgit_cli("sync").exit_code == 0
    return world


def state(memory_path, *files) -> tuple:
    """What a refused command must leave as it was: every ref, the worktree, and the files named."""
    return (all_refs(memory_path), git(memory_path, "status", "--porcelain"),
            *(f.read_bytes() if f.exists() else None for f in files))


def refused(result, as_json: bool) -> None:
    assert result.exit_code == 2, result.output
    if as_json:
        assert result.stdout.count("\n") == 1  # one line: the error as JSON, nothing else
        error = json.loads(result.stdout)["error"]
        assert error["code"] == "needs_yes" and "--yes" in error["message"]
    else:
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: ") and "--yes" in result.stderr


def test_forget_and_projects_merge_refuse_without_yes_and_change_nothing(two_projects, memgit_cli, memory_path):
    before = state(memory_path)
    for as_json, extra in ((True, ("--json",)), (False, ())):
        refused(memgit_cli("forget", "emoji", *extra), as_json)
        refused(memgit_cli("projects", "merge", "pinion", "cog", *extra, input="y\n"), as_json)  # stdin: no terminal
    assert state(memory_path) == before
    assert memgit_cli("projects", "merge", "pinion", "nope").exit_code == 12  # a bad name is said first
    done = memgit_cli("projects", "merge", "pinion", "cog", "--yes", "--json")
    assert done.exit_code == 0 and "projects/cog" not in all_refs(memory_path)


def test_uninstall_refuses_without_yes_and_leaves_the_agents_files(memgit_cli, hermetic_env):
    settings = hermetic_env / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"theme": "dark"}\n')
    assert memgit_cli("install", "--settings", str(settings)).exit_code == 0
    installed = settings.read_bytes()
    refused(memgit_cli("uninstall", "--settings", str(settings), "--json"), True)
    refused(memgit_cli("uninstall", "--settings", str(settings)), False)
    assert settings.read_bytes() == installed
    assert memgit_cli("uninstall", "--settings", str(settings), "--dry-run", "--json").exit_code == 0  # asks nothing
    assert memgit_cli("uninstall", "--settings", str(settings), "--yes", "--json").exit_code == 0
    assert json.loads(settings.read_text()) == {"theme": "dark"}
    assert memgit_cli("uninstall", "--settings", str(settings)).exit_code == 0  # nothing left to take out: no question


def at_terminal(home, *args: str, answer: str) -> subprocess.CompletedProcess:
    """Run memgit with a real terminal as its stdin, typing `answer`."""
    main, child = pty.openpty()
    try:
        os.write(main, answer.encode())  # typed ahead: the terminal holds the line until memgit reads it
        proc = subprocess.run([sys.executable, "-m", "memgit.cli.commands", *args], stdin=child, capture_output=True,
                              text=True, env=faults.memgit_env(home), cwd=home, timeout=120)
    finally:
        os.close(child)
        os.close(main)
    return proc


def test_forget_at_a_terminal_asks_and_does_what_the_person_answers(world, hermetic_env, memory_path):
    before = state(memory_path)
    no = at_terminal(hermetic_env, "forget", "emoji", answer="n\n")
    assert no.returncode == 1 and "Forget this?" in no.stderr and "emoji" in no.stdout
    assert state(memory_path) == before
    yes = at_terminal(hermetic_env, "forget", "emoji", answer="y\n")
    assert yes.returncode == 0, yes.stderr
    assert git(memory_path, "log", "-1", "--format=%s", "projects/pinion").startswith("consolidate(pinion)")
    assert "forget(pinion)" in git(memory_path, "log", "--format=%s", "projects/pinion")
