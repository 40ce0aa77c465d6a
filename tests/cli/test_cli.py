"""The command line as a person meets it: exit codes, stdout vs stderr, --json shapes, --help."""

import json
import os
import subprocess
import sys

import pytest

from memgit.cli.commands import cli
from memgit.sources.claude_code.synthetic import demo_sessions
from tests.conftest import age, git

COMMANDS = ["init", "sync", "status", "log", "show", "demo", "sessions", "config", "config show"]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_with_an_example(memgit_cli, command):
    result = memgit_cli(*command.split(), "--help")
    assert result.exit_code == 0
    assert "Example" in result.stdout


def test_readme_lists_every_command():
    readme = (os.path.dirname(__file__) + "/../../README.md")
    text = open(readme).read()
    for command in cli.commands:
        assert f"`memgit {command}" in text, command


def test_init_creates_a_repo_and_refuses_twice(memgit_cli, memory_path):
    first = memgit_cli("init")
    assert first.exit_code == 0 and str(memory_path) in first.stdout
    assert git(memory_path, "log", "--format=%an <%ae>|%s") == "memgit <memgit@localhost>|init(main): create memory repository\n"
    second = memgit_cli("init", "--json")
    assert second.exit_code != 0
    assert json.loads(second.stdout)["ok"] is False


def test_commands_without_a_repo_say_how_to_create_one(memgit_cli):
    for command in (["status"], ["log"], ["show", "abc"]):
        result = memgit_cli(*command)
        assert result.exit_code == 3
        assert result.stdout == ""
        assert result.stderr.startswith("Error: no memory repository at ")
        assert "memgit init" in result.stderr
    data = json.loads(memgit_cli("status", "--json").stdout)
    assert data == {"ok": False, "error": {"code": "not_a_repo", "message": data["error"]["message"]}}


def test_status_log_and_show_after_a_sync(memgit_cli, claude_projects, memory_path):
    for session in demo_sessions():
        age(session.write(claude_projects))
    assert memgit_cli("sync").exit_code == 0
    status = json.loads(memgit_cli("status", "--json").stdout)
    assert status["repo"] == str(memory_path)
    assert status["totals"] == {"on_disk": 4, "processed": 4, "pending": 0, "waiting": 0, "failed": 0}
    assert all(p["last_sync"] for p in status["projects"])
    text = memgit_cli("status").stdout
    assert "repo: " + str(memory_path) in text

    log = json.loads(memgit_cli("log", "--json", "-n", "3").stdout)["commits"]
    assert len(log) == 3 and all(c["sha"] and c["subject"] for c in log)
    only = json.loads(memgit_cli("log", "--project", "lantern", "--json").stdout)["commits"]
    assert only and {c["branch"] for c in only} == {"projects/lantern"}
    missing = memgit_cli("log", "--project", "nope")
    assert missing.exit_code == 12 and "no project matches 'nope'" in missing.stderr

    show = memgit_cli("show", "projects/pinion:PROJECT.md")
    assert show.exit_code == 0 and "name: pinion" in show.stdout
    ambiguous = memgit_cli("show", "claude-code/")
    assert ambiguous.exit_code == 11 and "matches 4 sessions" in ambiguous.stderr


def test_sync_summary_line(memgit_cli, claude_projects):
    for session in demo_sessions():
        age(session.write(claude_projects))
    out = memgit_cli("sync").stdout.strip().splitlines()[-1]
    assert out.startswith("read 4, extracted ") and "failed 0, commits " in out


def test_demo_runs_the_whole_pipeline(memgit_cli, tmp_path):
    result = memgit_cli("demo", "--keep", str(tmp_path / "demo"))
    assert result.exit_code == 0, result.stderr
    assert "## Learnings" in result.stdout and "extract(pinion)" in result.stdout
    git(tmp_path / "demo" / "memory", "fsck", "--strict")
    # lantern's session built with npm, then the person said "use pnpm instead of npm in this repo from now
    # on": the later rule holds, and the summary never shows both (issue 17)
    summary = git(tmp_path / "demo" / "memory", "show", "projects/lantern:memory_summary.md")
    assert "Use pnpm instead of npm in this repo from now on." in summary
    assert "npm run build" not in summary and "npm install" not in summary


def test_help_does_not_import_litellm_or_dulwich():
    code = ("import sys; from memgit.cli.commands import cli\n"
            "try:\n    cli(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('litellm', 'dulwich')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"
