"""`memgit sync` over the real Claude Code fixtures laid out as ~/.claude/projects (the issue's "done when")."""

import json
import shutil
from pathlib import Path

import pytest

from memgit.sources.claude_code import reader as claude_code
from tests.conftest import CLAUDE_FIXTURES, age, all_refs, fsck, git, ledger_commits, needs_shared, point_home

pytestmark = needs_shared


def lay_out_fixtures(projects: Path) -> None:
    """Copy each folder of the fixtures that holds transcripts to projects/<folder name>, as Claude Code keeps them."""
    for folder in sorted({p.parent for p in CLAUDE_FIXTURES.rglob("*.jsonl")}):
        if "subagents" in folder.parts:
            continue
        if any(parent.name == "subagents" for parent in folder.parents):
            continue
        if (folder.parent / f"{folder.name}.jsonl").exists():  # a session's own folder (turn-2/): copied with it
            continue
        target = projects / folder.name
        shutil.copytree(folder, target, dirs_exist_ok=True)
    for path in projects.rglob("*"):
        if path.is_file():
            path.chmod(0o644)
            age(path)


def fixtures_home(tmp_path_factory, name: str) -> Path:
    """A temporary HOME whose ~/.claude/projects holds the fixtures, laid out as Claude Code keeps them."""
    home = tmp_path_factory.mktemp(name)
    projects = home / ".claude" / "projects"
    projects.mkdir(parents=True)
    lay_out_fixtures(projects)
    return home


@pytest.fixture(scope="module")
def synced(tmp_path_factory):
    """One sync over all fixtures, shared by the tests of this module (it takes a few seconds)."""
    from click.testing import CliRunner

    from memgit.cli.commands import cli

    home = fixtures_home(tmp_path_factory, "fixtures-home")
    projects = home / ".claude" / "projects"
    with pytest.MonkeyPatch.context() as mp:
        point_home(mp, home, data="data", config="config")
        first = CliRunner().invoke(cli, ["sync", "--json"], catch_exceptions=False)
        repo = home / "data" / "memgit"
        refs = all_refs(repo)
        second = CliRunner().invoke(cli, ["sync", "--json"], catch_exceptions=False)
    return {"projects": projects, "repo": repo, "first": first, "second": second, "refs_after_first": refs}


def test_sync_exits_zero_and_reads_every_main_transcript(synced):
    assert synced["first"].exit_code == 0, synced["first"].stderr
    data = json.loads(synced["first"].stdout)
    main_sessions = claude_code.discover(synced["projects"])
    assert data["read"] == len(main_sessions) >= 20
    assert data["extracted"] > 5


def test_every_main_transcript_is_exactly_one_ledger_commit_with_a_reason(synced):
    rows = ledger_commits(synced["repo"])
    expected = sorted(f"claude-code/{f.session_id}" for f in claude_code.discover(synced["projects"]))
    assert sorted(r["session"] for r in rows) == expected
    for row in rows:
        if row["kind"] in ("skip", "fail"):
            assert row["reason"], row


def test_subagent_files_are_folded_never_sessions(synced):
    sessions = {r["session"] for r in ledger_commits(synced["repo"])}
    assert not any(s.split("/", 1)[1].startswith("agent-") for s in sessions)
    subagent_files = [p for p in synced["projects"].rglob("agent-*.jsonl")]
    assert len(subagent_files) >= 6


def test_degenerate_files_are_skips_with_their_reason(synced):
    rows = {r["session"].split("/", 1)[1]: r for r in ledger_commits(synced["repo"])}
    for stem in ("2c5941bd-b9de-41d6-9414-221d175776f7", "4e27c414-a885-46a0-b5c8-d58e1417377d",
                 "a95fea4a-b88a-4e49-ac07-4cc323d8700c"):
        assert rows[stem]["kind"] == "skip", rows[stem]


def test_second_sync_makes_no_commit(synced):
    assert json.loads(synced["second"].stdout)["commits"] == 0
    assert all_refs(synced["repo"]) == synced["refs_after_first"]


def test_repo_is_valid_and_log_shows_the_trailers(synced):
    fsck(synced["repo"])
    log = git(synced["repo"], "log", "--all", "--format=%(trailers)")
    for key in ("Memgit-Session:", "Memgit-Source:", "Memgit-Range:", "Memgit-Source-Sha256:",
                "Memgit-Extractor:", "Memgit-Outcome:"):
        assert key in log
    assert git(synced["repo"], "status", "--porcelain") == ""


def test_no_raw_transcript_is_committed(synced):
    files = git(synced["repo"], "log", "--all", "--name-only", "--format=").split()
    assert not [f for f in files if f.endswith(".jsonl")]
