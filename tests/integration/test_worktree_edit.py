"""A person's edits in the worktree survive a sync and are recorded as an `edit` commit."""

import json

from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests.conftest import age, fsck, git


def test_a_hand_edit_survives_a_sync_and_is_recorded(claude_projects, memory_path, memgit_cli):
    memgit_cli("init")
    readme = memory_path / "README.md"
    readme.write_text(readme.read_text() + "\nMy own line.\n")
    (memory_path / "notes").mkdir()
    (memory_path / "notes" / "mine.md").write_text("# Mine\nThe staging box reboots on Mondays.\n")
    # An empty transcript has no cwd: its skip commit goes to main, the checked-out branch.
    empty = claude_projects / "-home-demo" / f"{session_id('empty')}.jsonl"
    empty.parent.mkdir(parents=True)
    empty.write_text("")
    age(empty)
    data = json.loads(memgit_cli("sync", "--json").stdout)
    assert data["commits"] >= 2
    log = [line.split(" ", 1) for line in git(memory_path, "log", "--format=%H %s", "main").splitlines()]
    log = [(sha, subject) for sha, subject in log if not subject.startswith("consolidate(")]
    assert log[0][1].startswith("skip(main):")
    assert log[1][1].startswith("edit(main):")
    changed = git(memory_path, "show", "--name-only", "--format=", log[1][0]).split()
    assert sorted(changed) == ["README.md", "notes/mine.md"]
    assert "My own line." in readme.read_text()
    assert git(memory_path, "status", "--porcelain") == ""
    fsck(memory_path)


def test_memgit_never_overwrites_an_unrecorded_edit_on_the_checked_out_branch(claude_projects, memory_path, memgit_cli):
    w = SessionWriter(session_id("wt-1"), "/home/demo/dev/pinion")
    w.user("Add logging. Always use structlog, never print.")
    w.bash("uv run pytest", "4 passed in 0.1s")
    age(w.write(claude_projects))
    memgit_cli("sync")
    git(memory_path, "switch", "-q", "projects/pinion")
    [note] = [p for p in git(memory_path, "ls-files").split() if p.startswith("sessions/")]
    (memory_path / note).write_text("my rewrite of the note\n")

    more = SessionWriter(session_id("wt-2"), "/home/demo/dev/pinion")
    more.user("Add metrics. Prefer prometheus_client over statsd.")
    more.bash("uv run pytest", "5 passed in 0.1s")
    age(more.write(claude_projects))
    assert memgit_cli("sync").exit_code == 0
    assert (memory_path / note).read_text() == "my rewrite of the note\n"
    log = [s for s in git(memory_path, "log", "--format=%s", "projects/pinion").splitlines()
           if not s.startswith("consolidate(")]
    assert log[0].startswith("extract(pinion):") and log[1].startswith("edit(pinion):")
    assert git(memory_path, "status", "--porcelain") == ""  # new note checked out, edit recorded
    fsck(memory_path)
