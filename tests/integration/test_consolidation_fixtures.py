"""Offline sync + consolidation over the real Claude Code fixtures (the issue's "done when").

Until `memgit sync` consolidates by itself, the fixture runs `memgit sync` then `memgit consolidate`;
every check reads the repository, so the tests hold either way.
"""

import re
import shutil
import subprocess

import pytest
from click.testing import CliRunner

from memgit.core import tokens
from memgit.cli.commands import cli
from memgit.consolidate import _markdown, heuristic
from memgit.consolidate.heuristic.skills import MARKER
from tests.conftest import all_refs, fsck, git, ledger_commits, needs_shared, point_home
from tests.integration.test_sync_fixtures import fixtures_home

pytestmark = needs_shared


def memgit(*args):
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return fixtures_home(tmp_path_factory, "consolidation-home")


@pytest.fixture
def env(home, monkeypatch):
    point_home(monkeypatch, home, data="data", config="config")
    return home


@pytest.fixture(scope="module")
def synced(home):
    """One sync over all fixtures (it consolidates), then a second run; shared by this module's tests."""
    with pytest.MonkeyPatch.context() as mp:
        point_home(mp, home, data="data", config="config")
        memgit("sync")  # reads every transcript, then consolidates each scope
        repo = home / "data" / "memgit"
        refs = all_refs(repo)
        memgit("sync")
        memgit("consolidate")  # nothing new: neither commits anything
    return {"repo": repo, "refs_after_first": refs}


def branches_with_notes(repo):
    out = []
    for branch in git(repo, "branch", "--format=%(refname:short)").split():
        if branch.startswith("projects/") and git(repo, "ls-tree", "-r", "--name-only", branch, "sessions").strip():
            out.append(branch)
    return out


def scopes(repo):
    return [*branches_with_notes(repo), "main"]


def test_every_project_with_notes_and_main_get_a_consolidate_commit_with_its_trailers(synced):
    repo = synced["repo"]
    assert len(branches_with_notes(repo)) >= 8
    for branch in scopes(repo):
        subject = git(repo, "log", "-1", "--format=%s", branch).strip()
        scope = branch.removeprefix("projects/")
        assert re.fullmatch(rf"consolidate\({re.escape(scope)}\): (1 note|(0|[2-9]|\d\d+) notes), (1 learning|(0|[2-9]|\d\d+) learnings)", subject)
        trailers = git(repo, "log", "-1", "--format=%(trailers:only,unfold)", branch)
        assert f"Memgit-Through: {git(repo, 'rev-parse', branch + '^').strip()}" in trailers
        assert f"Memgit-Consolidator: {heuristic.CONSOLIDATOR}" in trailers and "Memgit-Tokens: 0" in trailers
    main_trailers = git(repo, "log", "-1", "--format=%(trailers:key=Memgit-Read,valueonly)", "main").split("\n")
    for branch in branches_with_notes(repo):
        assert f"{branch} {git(repo, 'rev-parse', branch).strip()}" in main_trailers


def test_summaries_stay_under_budget_and_9000_characters(synced):
    repo = synced["repo"]
    for branch in scopes(repo):
        summary = git(repo, "show", f"{branch}:memory_summary.md")
        assert 0 < tokens.count(summary) <= 2500 and len(summary) < 9000, branch
        assert "## Where to look deeper" in summary or "Nothing that holds across projects yet" in summary


def test_the_chars_estimate_is_safe_and_close_on_what_memgit_writes(synced):
    """The fallback when tiktoken is missing: never under the real count on a summary, at most 30% over
    on one large enough for its budget to matter (a few lines of prose run at 5 characters a token)."""
    repo = synced["repo"]
    for branch in scopes(repo):
        summary = git(repo, "show", f"{branch}:memory_summary.md")
        real, estimate = tokens.count(summary), tokens.estimate(summary)
        assert real <= estimate, (branch, real, estimate)
        assert len(summary) < 600 or estimate <= 1.3 * real, (branch, real, estimate)


def test_memory_md_bullets_link_to_existing_session_notes(synced):
    repo = synced["repo"]
    linked = 0
    for branch in branches_with_notes(repo):
        files = set(git(repo, "ls-tree", "-r", "--name-only", branch).split())
        memory = git(repo, "show", f"{branch}:MEMORY.md")
        for section in _markdown.sections(memory):
            for bullet in section.bullets:
                if bullet.type:
                    assert bullet.links and all(t.startswith("sessions/") and t in files for t in bullet.links)
                    linked += 1
        for path in (f for f in files if f.startswith("skills/")):
            skill = git(repo, "show", f"{branch}:{path}")
            assert MARKER in skill and not _markdown.broken_links(skill, files, path.rsplit("/", 1)[0])
    assert linked >= 40


def test_skills_come_from_commands_seen_in_three_sessions(synced):
    files = git(synced["repo"], "ls-tree", "-r", "--name-only", "projects/cli").split()
    assert "skills/cli-run-tests/SKILL.md" in files


def test_main_holds_no_command_path_or_fact_of_one_project(synced):
    """cli and cli-2 both ran `mise run test`: a command of those projects, not of every project."""
    memory = git(synced["repo"], "show", "main:MEMORY.md")
    summary = git(synced["repo"], "show", "main:memory_summary.md")
    learned = "\n".join(b.text for s in _markdown.sections(memory) for b in s.bullets if b.type)
    assert "mise run test" not in learned and "`" not in learned.split(" — ")[0]
    assert not any(b.type in ("command", "fact", "decision") for s in _markdown.sections(memory) for b in s.bullets)
    assert "\n- Test: `mise run test" in git(synced["repo"], "show", "projects/cli:memory_summary.md")
    assert "mise run test" not in summary and "## Projects" in memory  # every project, in main's MEMORY.md


def test_running_again_changes_nothing_and_the_repo_is_valid(synced):
    repo = synced["repo"]
    assert all_refs(repo) == synced["refs_after_first"]
    fsck(repo)
    assert git(repo, "status", "--porcelain") == ""


def single_session_learning(repo):
    """A (branch, learning text, its note) where one session alone supports the learning and others remain."""
    extracts = {}
    for row in ledger_commits(repo):
        if row["kind"] == "extract":
            extracts.setdefault(row["session"], []).append(row["sha"])
    for branch in branches_with_notes(repo):
        memory = git(repo, "show", f"{branch}:MEMORY.md")
        bullets = [b for s in _markdown.sections(memory) for b in s.bullets if b.type]
        others = {t for b in bullets for t in b.links}
        for bullet in bullets:
            if " — 1 session: " not in bullet.text or len(bullets) < 3:
                continue
            [note] = bullet.links
            session = git(repo, "show", f"{branch}:{note}").split("session: ", 1)[1].split("\n", 1)[0]
            shas = extracts.get(session, [])
            if len(shas) == 1 and any(t != note for t in others):
                return branch, bullet.text.split(" — ", 1)[0], note, shas[0]
    raise AssertionError("no learning supported by exactly one session")


def test_reverting_one_extraction_drops_the_learnings_only_it_supported(synced, env, tmp_path):
    repo = tmp_path / "memgit"
    shutil.copytree(synced["repo"], repo, symlinks=True)
    branch, learning, note, sha = single_session_learning(repo)
    before = git(repo, "show", f"{branch}:MEMORY.md")
    kept = [b.text.split(" — ", 1)[0] for s in _markdown.sections(before) for b in s.bullets
            if b.type and any(t != note for t in b.links)]
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", str(wt), branch)
    git(wt, "-c", "user.name=Person", "-c", "user.email=person@example.com", "revert", "--no-edit", sha)
    git(repo, "worktree", "remove", str(wt))
    memgit("sync", "--repo", str(repo))
    after = git(repo, "show", f"{branch}:MEMORY.md")
    assert learning not in after and note not in after
    for text in kept:
        assert text in after
    assert git(repo, "log", "-1", "--format=%s", branch).startswith("consolidate(")
    assert not _markdown.broken_links(after, set(git(repo, "ls-tree", "-r", "--name-only", branch).split()))
    result = subprocess.run(["git", "-C", str(repo), "fsck", "--strict"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_what_the_caches_built_sync_by_sync_equals_a_recompute(synced, env, tmp_path):
    """Every consolidation so far reused .git/memgit/memory/ note by note (the revert above too): with
    the caches deleted, a forced consolidation rebuilds them from the notes and finds nothing to change."""
    repo = tmp_path / "memgit"
    shutil.copytree(synced["repo"], repo, symlinks=True)
    branch, _, _, sha = single_session_learning(repo)
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", str(wt), branch)
    git(wt, "-c", "user.name=Person", "-c", "user.email=person@example.com", "revert", "--no-edit", sha)
    git(repo, "worktree", "remove", str(wt))
    memgit("sync", "--repo", str(repo))  # incremental: one note less, project and main
    before = all_refs(repo)
    shutil.rmtree(repo / ".git" / "memgit" / "memory")
    memgit("consolidate", "--repo", str(repo), "--force")
    assert all_refs(repo) == before
    assert (repo / ".git" / "memgit" / "memory").is_dir()  # rebuilt
