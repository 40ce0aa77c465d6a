"""`memgit sync` end to end over the project's own synthetic transcripts (no ../shared needed)."""

import json

from memgit.sources.claude_code.synthetic import SessionWriter, demo_sessions, session_id
from tests.conftest import age, all_refs, fsck, git, ledger_commits


def write_demo(projects):
    paths = []
    for i, session in enumerate(demo_sessions()):
        path = session.write(projects)
        age(path, 7200 - 60 * i)  # oldest first, in the order written
        paths.append(path)
    return paths


def test_first_sync_creates_the_repo_and_records_every_session(claude_projects, memory_path, memgit_cli):
    write_demo(claude_projects)
    result = memgit_cli("sync", "--json")
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["read"] == 4 and summary["extracted"] + summary["skipped"] == 4 and summary["failed"] == 0
    assert git(memory_path, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    assert not (memory_path / ".git" / "config").read_text().count("bare = true")
    branches = git(memory_path, "branch", "--format=%(refname:short)").split()
    assert {"main", "projects/pinion", "projects/lantern"} <= set(branches)
    rows = ledger_commits(memory_path)
    assert sorted(r["session"] for r in rows) == sorted(f"claude-code/{s.session_id}" for s in demo_sessions())
    assert all(r["reason"] for r in rows if r["kind"] in ("skip", "fail"))
    # The session that cd'ed into src/pinion stays in its project.
    pinion_notes = git(memory_path, "ls-tree", "-r", "--name-only", "projects/pinion").split()
    assert len([p for p in pinion_notes if p.startswith("sessions/")]) == 2
    assert "PROJECT.md" in pinion_notes
    fsck(memory_path)
    assert git(memory_path, "status", "--porcelain") == ""


def test_second_sync_commits_nothing(claude_projects, memory_path, memgit_cli):
    write_demo(claude_projects)
    memgit_cli("sync")
    before = all_refs(memory_path)
    result = memgit_cli("sync", "--json")
    assert json.loads(result.stdout)["commits"] == 0
    assert all_refs(memory_path) == before


def test_notes_say_what_a_future_session_needs(claude_projects, memory_path, memgit_cli):
    write_demo(claude_projects)
    memgit_cli("sync")
    first = session_id("pinion-1")[:8]
    shown = memgit_cli("show", first)
    assert shown.exit_code == 0, shown.stderr
    text = shown.stdout
    assert text.startswith("---\nsession: claude-code/")
    assert "uv run pytest" in text and "[command]" in text
    assert "emoji" in text  # the user's stated preference


def test_a_grown_transcript_gets_one_extract_commit_for_the_new_range(claude_projects, memory_path, memgit_cli):
    writer = SessionWriter(session_id("grow"), "/home/demo/dev/pinion")
    writer.user("Make the exporter write CSV. Always use the csv module, never hand-rolled joins.")
    writer.bash("uv run pytest tests/test_export.py", "5 passed in 0.40s")
    path = writer.write(claude_projects)
    age(path)
    memgit_cli("sync")
    first_end = path.stat().st_size
    [first] = ledger_commits(memory_path)
    assert first["range"] == f"0-{first_end}"

    before = len(writer.records)
    writer.user("Now add a --delimiter option. Use click options, not argparse.")
    writer.bash("uv run pytest tests/test_export.py", "6 passed in 0.41s")
    with open(path, "a", encoding="utf-8") as f:
        f.write("".join(json.dumps(r) + "\n" for r in writer.records[before:]))
    age(path)
    memgit_cli("sync")
    rows = ledger_commits(memory_path)
    assert len(rows) == 2
    newest = rows[0]
    assert newest["kind"] == "extract" and newest["range"] == f"{first_end}-{path.stat().st_size}"
    # One note for the session, now holding both ranges' learnings.
    notes = [p for p in git(memory_path, "ls-tree", "-r", "--name-only", "projects/pinion").split()
             if p.startswith("sessions/")]
    assert len(notes) == 1
    content = git(memory_path, "show", f"projects/pinion:{notes[0]}")
    assert "csv module" in content and "argparse" in content
    fsck(memory_path)


def test_idle_and_age_window_decide_eligibility(claude_projects, memory_path, memgit_cli):
    fresh = SessionWriter(session_id("fresh"), "/home/demo/dev/pinion").user("Add a retry, always with backoff.")
    fresh_path = fresh.write(claude_projects)  # modified just now: still active
    old = SessionWriter(session_id("old"), "/home/demo/dev/pinion").user("Rename the module. Never use camelCase.")
    old_path = old.write(claude_projects)
    age(old_path, 40 * 86400)  # older than the 30-day window
    assert json.loads(memgit_cli("sync", "--json").stdout)["read"] == 0
    status = json.loads(memgit_cli("status", "--json").stdout)
    assert status["totals"]["waiting"] == 2 and status["totals"]["pending"] == 0
    by_session = json.loads(memgit_cli("sync", "--session", fresh.session_id[:8], "--json").stdout)
    assert [s["session"] for s in by_session["sessions"]] == [f"claude-code/{fresh.session_id}"]
    assert json.loads(memgit_cli("sync", "--all", "--json").stdout)["read"] == 1
    assert fresh_path.exists()


def test_dry_run_commits_nothing_and_lists_what_would_be_read(claude_projects, memory_path, memgit_cli):
    write_demo(claude_projects)
    memgit_cli("init")
    before = all_refs(memory_path)
    result = memgit_cli("sync", "--dry-run", "--json")
    data = json.loads(result.stdout)
    assert data["dry_run"] and len(data["sessions"]) == 4 and data["commits"] == 0
    assert all(s["kind"] == "planned" for s in data["sessions"])
    assert all_refs(memory_path) == before


def test_max_sessions_and_project_filter(claude_projects, memory_path, memgit_cli):
    write_demo(claude_projects)
    assert json.loads(memgit_cli("sync", "--max-sessions", "1", "--json").stdout)["read"] == 1
    data = json.loads(memgit_cli("sync", "--project", "lantern", "--json").stdout)
    assert data["read"] == 2 and {s["branch"] for s in data["sessions"]} == {"projects/lantern"}


def test_a_broken_transcript_line_is_skipped_and_the_rest_is_kept(claude_projects, memory_path, memgit_cli):
    writer = SessionWriter(session_id("broken"), "/home/demo/dev/pinion")
    writer.user("Fix the flaky login test. Don't use sleep in tests, use the fake clock instead.")
    writer.bash("uv run pytest tests/test_login.py", "3 passed in 0.2s")
    path = writer.write(claude_projects)
    with open(path, "a") as f:
        f.write('{"type": "user", "message": {broken json\n')
    age(path)
    data = json.loads(memgit_cli("sync", "--json").stdout)
    assert data["extracted"] == 1
    assert "fake clock" in memgit_cli("show", writer.session_id[:8]).stdout


def test_redo_reads_a_session_again_from_its_start(claude_projects, memory_path, memgit_cli):
    write_demo(claude_projects)
    memgit_cli("sync")
    target = session_id("pinion-1")
    data = json.loads(memgit_cli("sync", "--redo", target[:8], "--json").stdout)
    assert [(s["session"], s["start"]) for s in data["sessions"]] == [(f"claude-code/{target}", 0)]
    # read again from byte 0; the note came out the same, so no second (empty) extract commit
    assert [(s["kind"], s["reason"]) for s in data["sessions"]] == [("none", "redone, unchanged")]
    rows = [r for r in ledger_commits(memory_path) if r["session"] == f"claude-code/{target}"]
    assert len(rows) == 1
