"""A person's edit of a file memgit regenerates is kept as theirs (issue 19): an edit of MEMORY.md, of the
summary and of a skill survives later consolidations, `git revert` of the edit commits gives memgit's text
back, and an edit left in the worktree survives the sync that finds it."""

from __future__ import annotations

import json
import sys
from datetime import datetime, timedelta, timezone

import pytest

from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests.conftest import age, fsck, git

BRANCH = "projects/pinion"
SKILL = "skills/pinion-run-tests/SKILL.md"
DAY = datetime(2026, 11, 2, 9, 0, tzinfo=timezone.utc)
RULE = "structlog"  # a word of the convention every session states
ADDED = "- [convention] Release notes go in CHANGES.md, newest first."  # a person's line in MEMORY.md
SUMMARY_LINE = "- Deploys happen on Fridays only; never merge on a Thursday evening."
STEP = "Start the database first: `docker compose up -d db`."


def session(n: int) -> SessionWriter:
    return (SessionWriter(session_id(f"hand-{n}"), "/home/demo/dev/pinion", start=DAY + timedelta(days=n))
            .user("Fix the flaky export test. Always use structlog, never print.")
            .bash("uv run pytest -x tests/", "collected 9 items\n\n9 passed in 0.40s")
            .assistant("Done: the tests pass."))


def add_sessions(projects_dir, *numbers: int) -> None:
    for n in numbers:
        age(session(n).write(projects_dir))


def sync(memgit_cli, *args: str) -> str:
    result = memgit_cli("sync", *args)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def show(repo, path: str, branch: str = BRANCH) -> str:
    return git(repo, "show", f"{branch}:{path}")


@pytest.fixture
def editor(tmp_path, monkeypatch):
    """EDITOR: a small script that replaces the file it is given with the text last handed to it."""
    script = tmp_path / "editor.py"
    script.write_text("import shutil, sys\nshutil.copyfile(sys.argv[0] + '.new', sys.argv[1])\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    return lambda text: (tmp_path / "editor.py.new").write_text(text)


def edit(memgit_cli, editor, new_text: str, *path: str):
    editor(new_text)
    result = memgit_cli("edit", *path, "--project", "pinion")
    assert result.exit_code == 0, result.stderr
    return result


def insert_after(text: str, marker: str, line: str) -> str:
    """`text` with `line` after the first line that starts with `marker`."""
    lines = text.split("\n")
    at = next(i for i, x in enumerate(lines) if x.startswith(marker))
    return "\n".join(lines[:at + 1] + [line] + lines[at + 1:])


def test_edits_of_memory_summary_and_a_skill_outlive_two_consolidations_and_git_revert_undoes_them(
        claude_projects, memory_path, memgit_cli, editor, tmp_path, monkeypatch):
    add_sessions(claude_projects, 0, 1, 2)
    sync(memgit_cli)
    memory, summary = show(memory_path, "MEMORY.md"), show(memory_path, "memory_summary.md")
    rule = next(x for x in memory.splitlines() if x.startswith("- [convention]") and RULE in x)
    assert RULE in summary and SKILL in git(memory_path, "ls-tree", "-r", "--name-only", BRANCH)

    # MEMORY.md: a line added (pinned as the person's note), a learning removed (out of the summary too)
    told = edit(memgit_cli, editor, insert_after(memory, "## ", ADDED).replace(rule + "\n", ""), "MEMORY.md")
    memory_edit = git(memory_path, "rev-parse", BRANCH).strip()
    # the summary, opened by `memgit edit` without a path: a line added, a line rewritten
    summary = show(memory_path, "memory_summary.md")
    test_line = next(x for x in summary.splitlines() if x.startswith("- Test: "))
    new_summary = insert_after(summary, "## ", SUMMARY_LINE).replace(test_line, "- Test: `make test` (it wraps pytest)")
    told_summary = edit(memgit_cli, editor, new_summary)
    summary_edit = git(memory_path, "rev-parse", BRANCH).strip()
    # a skill: a step added
    skill = show(memory_path, SKILL)
    edit(memgit_cli, editor, insert_after(skill, "# ", f"\n{STEP}"), SKILL)
    skill_edit = git(memory_path, "rev-parse", BRANCH).strip()

    for n in (3, 4):  # two consolidations, each over a new session
        add_sessions(claude_projects, n)
        sync(memgit_cli)
        assert git(memory_path, "log", "-1", "--format=%s", BRANCH).startswith("consolidate(pinion)")
        memory, summary, skill = (show(memory_path, p) for p in ("MEMORY.md", "memory_summary.md", SKILL))
        assert ADDED in memory and rule.split(" — ")[0] not in memory
        assert "Release notes go in CHANGES.md" in summary and RULE not in summary  # pinned; forgotten
        assert SUMMARY_LINE in summary and "- Test: `make test` (it wraps pytest)" in summary
        assert test_line not in summary
        assert STEP in skill and f"{n + 1} sessions" in skill  # the skill is memgit's still, and current
    # what the edit commit records, and what the person was told before the editor opened and after
    trailers = git(memory_path, "log", "-1", "--format=%(trailers)", memory_edit)
    assert "Memgit-Hand: hand/" in trailers and "Memgit-Pin: notes/" in trailers
    assert "Memgit-Drop: - [convention] Always use structlog" in trailers
    assert "editing projects/pinion:MEMORY.md" in told.stderr and "kept as yours" in told.stderr
    assert "MEMORY.md by hand" in told.stdout and "kept as yours" in told.stdout and "git revert" in told.stdout
    assert "editing projects/pinion:memory_summary.md" in told_summary.stderr  # `memgit edit` opens the summary
    assert "memory_summary.md by hand" in told_summary.stdout and "pinned as notes/" in told_summary.stdout

    side = tmp_path / "revert-here"  # a person reverts their edits with git, in a worktree of the branch
    git(memory_path, "worktree", "add", str(side), BRANCH)
    git(side, "-c", "user.name=P", "-c", "user.email=p@x", "revert", "--no-edit", skill_edit, summary_edit, memory_edit)
    git(memory_path, "worktree", "remove", str(side))
    assert memgit_cli("consolidate").exit_code == 0
    assert "hand/" not in git(memory_path, "ls-tree", "--name-only", BRANCH)
    assert "notes/" not in git(memory_path, "ls-tree", "--name-only", BRANCH)
    fsck(memory_path)

    # memgit's own text: what a repository that never saw the edits makes of the same sessions
    monkeypatch.setenv("MEMGIT_HOME", str(tmp_path / "control"))
    sync(memgit_cli)
    for path in ("MEMORY.md", "memory_summary.md", SKILL):
        assert show(memory_path, path) == show(tmp_path / "control", path), path


def test_an_edit_left_in_the_worktree_is_kept_by_the_sync_that_finds_it(claude_projects, memory_path, memgit_cli):
    add_sessions(claude_projects, 0, 1)
    sync(memgit_cli)
    git(memory_path, "switch", "-q", BRANCH)
    memory = (memory_path / "MEMORY.md").read_text()
    rule = next(x for x in memory.splitlines() if x.startswith("- [convention]") and RULE in x)
    (memory_path / "MEMORY.md").write_text(insert_after(memory, "## ", ADDED).replace(rule + "\n", ""))

    add_sessions(claude_projects, 2)
    out = sync(memgit_cli)
    for text in ((memory_path / "MEMORY.md").read_text(), show(memory_path, "MEMORY.md")):
        assert ADDED in text and rule.split(" — ")[0] not in text
        assert "3 session notes" in text  # consolidated over the new session, the edit kept
    assert RULE not in show(memory_path, "memory_summary.md")
    edits = [s for s in git(memory_path, "log", "--format=%s", BRANCH).splitlines() if s.startswith("edit(")]
    assert edits == ["edit(pinion): 1 file(s) changed by hand"]
    message = git(memory_path, "log", "-1", "--format=%B", "--grep=^edit(", BRANCH)
    assert "Memgit-Hand: hand/" in message and "Memgit-Pin: notes/" in message
    assert git(memory_path, "status", "--porcelain") == ""
    assert "your edit: MEMORY.md: kept as yours" in out and "git revert" in out
    as_json = json.loads(memgit_cli("sync", "--json").stdout)
    assert "kept_edits" not in as_json  # nothing new to keep
    fsck(memory_path)
