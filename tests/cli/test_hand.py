"""A person's hand on memory through the CLI: remember, forget (and git revert), review, edit."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest

from tests.conftest import fsck, git
from tests.integration import test_hooks

world = test_hooks.world  # a synced project `pinion` with summaries and a pinned note on main

EMOJI = "emoji"  # a word of a learning the world's session taught: "Don't put emoji in commit messages"


def subjects(repo, branch: str) -> list[str]:
    return git(repo, "log", "--format=%s", branch).splitlines()


def all_objects(repo) -> bytes:
    """Every object's content, read by git itself (trees are binary)."""
    return subprocess.run(["git", "-C", str(repo), "cat-file", "--batch-all-objects", "--batch"],
                          capture_output=True, check=True).stdout


def derived(repo, branch: str) -> str:
    return "\n".join(git(repo, "show", f"{branch}:{name}", check=False)
                     for name in ("MEMORY.md", "memory_summary.md"))


@pytest.mark.parametrize("command", ["remember", "forget", "review", "edit"])
def test_each_command_has_help_with_an_example(memgit_cli, command):
    result = memgit_cli(command, "--help")
    assert result.exit_code == 0 and "Example" in result.stdout


def test_remember_pins_a_note_on_the_cwd_project_and_the_next_session_is_told(memgit_cli, world, memory_path,
                                                                             monkeypatch):
    monkeypatch.chdir(world)
    out = json.loads(memgit_cli("remember", "The staging database is read-only on Mondays", "--type", "gotcha",
                                "--json").stdout)
    assert out["branch"] == "projects/pinion" and out["path"].startswith("notes/")
    assert subjects(memory_path, "projects/pinion")[0] == out["subject"] == \
        "remember(pinion): The staging database is read-only on Mondays"
    trailers = git(memory_path, "log", "-1", "--format=%(trailers:key=Memgit-Remember,valueonly)", "projects/pinion")
    assert trailers.strip() == out["path"]
    assert git(memory_path, "show", "--stat", "--format=", "projects/pinion").count("|") == 1  # one file, one commit
    assert "type: gotcha" in git(memory_path, "show", f"projects/pinion:{out['path']}")
    context = memgit_cli("context", "--cwd", str(world)).stdout
    assert "read-only on Mondays" in context and out["path"] in context
    monkeypatch.chdir(memory_path.parent)  # outside every project: main
    assert json.loads(memgit_cli("remember", "Answer in English", "--json").stdout)["branch"] == "main"
    assert json.loads(memgit_cli("remember", "x y", "--project", "pinion", "--json").stdout)["branch"] == "projects/pinion"
    fsck(memory_path)


def test_remember_twice_is_one_note_and_says_it_is_already_remembered(memgit_cli, world, memory_path):
    text = "The staging database is read-only on Mondays"
    first = json.loads(memgit_cli("remember", text, "--project", "pinion", "--json").stdout)
    commits = subjects(memory_path, "projects/pinion")
    again = memgit_cli("remember", "  The staging database   is read-only on Mondays\n", "--project", "pinion")
    assert again.exit_code == 0, again.stderr
    assert again.stdout.strip() == f"already remembered in projects/pinion:{first['path']}; nothing committed"
    assert subjects(memory_path, "projects/pinion") == commits  # no second commit
    notes = git(memory_path, "ls-tree", "-r", "--name-only", "projects/pinion", "notes/").split()
    assert notes == [first["path"]]
    twice = json.loads(memgit_cli("remember", text, "--project", "pinion", "--json").stdout)
    assert twice["already"] and twice["path"] == first["path"] and not twice["sha"]
    elsewhere = json.loads(memgit_cli("remember", text, "--global", "--json").stdout)  # another scope: its own note
    assert not elsewhere["already"] and elsewhere["branch"] == "main"


def test_remember_refuses_bad_input(memgit_cli, world, memory_path):
    assert memgit_cli("remember", "  ").exit_code != 0
    bad = memgit_cli("remember", "x", "--type", "mood")
    assert bad.exit_code != 0 and "unknown type" in bad.stderr
    both = memgit_cli("remember", "x", "--global", "--project", "pinion")
    assert both.exit_code != 0 and "not both" in both.stderr
    assert memgit_cli("remember", "x", "--project", "nope").exit_code != 0


def test_a_secret_in_remember_text_never_reaches_git(memgit_cli, world, memory_path):
    key = "ghp_" + "Zq8Wm3Xr7Yp2Zk5Vn9Bc4Df6Gh1Jk0Lm3Nq8R"
    result = memgit_cli("remember", f"Deploy with token {key} from the vault", "--global")
    assert result.exit_code == 0, result.stderr
    assert key not in result.stdout
    everything = git(memory_path, "log", "--all", "-p", "--format=%B")
    assert key not in everything and key.encode() not in all_objects(memory_path)
    assert "from the vault" in everything
    fsck(memory_path)


def test_forget_a_learning_then_git_revert_brings_it_back(memgit_cli, world, memory_path, tmp_path):
    assert memgit_cli("consolidate").exit_code == 0
    assert EMOJI in derived(memory_path, "projects/pinion")
    shown = memgit_cli("forget", EMOJI, input="n\n")
    assert shown.exit_code != 0 and "projects/pinion:sessions/" in shown.stdout and EMOJI in shown.stdout
    assert not subjects(memory_path, "projects/pinion")[0].startswith("forget(")  # asked, said no: nothing
    done = json.loads(memgit_cli("forget", EMOJI, "--json", "--yes").stdout)
    assert done["how"] == "query" and [c["branch"] for c in done["commits"]] == ["projects/pinion"]
    sha = done["commits"][0]["sha"]
    assert git(memory_path, "log", "-1", "--format=%s", sha).startswith("forget(pinion): learnings matching")
    assert EMOJI not in derived(memory_path, "projects/pinion")
    assert EMOJI not in git(memory_path, "grep", "-i", EMOJI, "projects/pinion", check=False)
    assert EMOJI not in derived(memory_path, "main")
    assert "consolidate(pinion)" in subjects(memory_path, "projects/pinion")[0]

    side = tmp_path / "revert-here"  # a person reverts on the branch, in a worktree of their own
    git(memory_path, "worktree", "add", str(side), "projects/pinion")
    git(side, "-c", "user.name=P", "-c", "user.email=p@x", "revert", "--no-edit", sha)
    assert EMOJI in git(side, "grep", "-i", EMOJI)
    git(memory_path, "worktree", "remove", str(side))
    assert memgit_cli("consolidate").exit_code == 0
    assert EMOJI in derived(memory_path, "projects/pinion")
    fsck(memory_path)


def test_forget_a_note_by_name_and_a_session_by_id(memgit_cli, world, memory_path):
    assert "fridays" in git(memory_path, "ls-tree", "-r", "--name-only", "main")
    out = memgit_cli("forget", "2026-11-20-fridays", "--yes")
    assert out.exit_code == 0, out.stderr
    assert "main:notes/2026-11-20-fridays.md" in out.stdout and "git revert" in out.stdout
    assert "fridays" not in git(memory_path, "ls-tree", "-r", "--name-only", "main")
    session = test_hooks.session_id("hook-world")
    gone = json.loads(memgit_cli("forget", session[:8], "--json", "--yes").stdout)
    assert gone["how"] == "session" and gone["drops"][0]["path"].startswith("sessions/")
    assert "sessions/" not in git(memory_path, "ls-tree", "-r", "--name-only", "projects/pinion")
    nothing = memgit_cli("forget", "no such words anywhere", "--yes")
    assert nothing.exit_code != 0 and "nothing matches" in nothing.stderr
    fsck(memory_path)


def test_review_lists_accepts_and_rejects(memgit_cli, world, memory_path):
    listed = json.loads(memgit_cli("review", "--json").stdout)["learnings"]
    assert listed and {x["branch"] for x in listed} == {"projects/pinion"}
    assert json.loads(memgit_cli("review", "--json").stdout)["learnings"] == listed  # listing records nothing
    answers = "".join("r\n" if EMOJI in x["text"] else "a\n" for x in listed)
    done = memgit_cli("review", input=answers)
    assert done.exit_code == 0, done.stderr
    assert f"accepted {len(listed) - 1}, rejected 1" in done.stdout
    log = subjects(memory_path, "projects/pinion")
    assert any(s.startswith("forget(pinion): rejected in review") for s in log)
    assert any(s.startswith("review(pinion): ") for s in log)
    assert EMOJI not in derived(memory_path, "projects/pinion")
    assert json.loads(memgit_cli("review", "--json").stdout)["learnings"] == []  # nothing new since
    fsck(memory_path)


def test_review_accept_all_records_the_review_in_a_trailer(memgit_cli, world, memory_path):
    out = json.loads(memgit_cli("review", "--accept-all", "--json").stdout)
    assert out["rejected"] == 0 and out["accepted"] > 0
    head = git(memory_path, "rev-parse", "projects/pinion^").strip()
    reviewed = git(memory_path, "log", "-1", "--format=%(trailers:key=Memgit-Reviewed,valueonly)", "projects/pinion")
    assert reviewed.strip() == head
    assert memgit_cli("review").stdout.strip() == "nothing new to review since the last review"


@pytest.fixture
def editor(tmp_path, monkeypatch):
    """EDITOR: a small script that appends a line to the file it is given."""
    script = tmp_path / "editor.py"
    script.write_text("import sys\nwith open(sys.argv[1], 'a') as f:\n    f.write(open(sys.argv[0] + '.line').read())\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    return lambda line: (tmp_path / "editor.py.line").write_text(line)


def test_edit_commits_the_editor_change(memgit_cli, world, memory_path, editor, monkeypatch):
    editor("\n- Edited by hand.\n")
    monkeypatch.chdir(world)
    result = memgit_cli("edit")
    assert result.exit_code == 0, result.stderr
    assert subjects(memory_path, "projects/pinion")[0] == "edit(pinion): memory_summary.md by hand"  # what sessions are told
    assert "Edited by hand." in git(memory_path, "show", "projects/pinion:memory_summary.md")
    editor("a new note\n")
    assert memgit_cli("edit", "notes/by-hand.md", "--global").exit_code == 0
    assert git(memory_path, "show", "main:notes/by-hand.md") == "a new note\n"
    assert memgit_cli("edit", "../outside", "--global").exit_code != 0
    fsck(memory_path)


def test_edit_refuses_a_secret_and_keeps_the_text(memgit_cli, world, memory_path, editor):
    key = "ghp_" + "Zq8Wm3Xr7Yp2Zk5Vn9Bc4Df6Gh1Jk0Lm3Nq8R"
    editor(f"token {key}\n")
    before = git(memory_path, "rev-parse", "main")
    result = memgit_cli("edit", "--global")
    assert result.exit_code == 6 and "kept in" in result.stderr
    assert git(memory_path, "rev-parse", "main") == before
    draft = result.stderr.split("kept in ", 1)[1].split(" ", 1)[0]
    assert key in open(draft).read() and stat.S_IMODE(os.stat(draft).st_mode) == 0o600
    assert key.encode() not in all_objects(memory_path)


def test_forget_refuses_a_session_prefix_two_sessions_share():
    from memgit.errors import AmbiguousSelector
    from memgit.verbs.forget import _by_session

    def note(session: str) -> str:
        return f"---\nsession: claude-code/{session}\n---\n# A session\n"

    texts = {("projects/pinion", "sessions/2026/11/a.md"): note("abcdef01-1111-4111-8111-111111111111"),
             ("projects/pinion", "sessions/2026/11/b.md"): note("abcdef02-2222-4222-8222-222222222222")}
    with pytest.raises(AmbiguousSelector, match="abcdef01.*abcdef02"):
        _by_session(texts, "abcdef0")
    assert [d.path for d in _by_session(texts, "abcdef02")] == ["sessions/2026/11/b.md"]
    assert _by_session(texts, "abc") == []  # too short to stand for a session: read as a query instead
