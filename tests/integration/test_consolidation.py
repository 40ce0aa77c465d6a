"""`memgit consolidate` (and sync) over synthetic transcripts: commits, skills, global, reverts, the LLM seam.

Until `memgit sync` runs the consolidation itself, these tests run `sync` then `consolidate`;
they check the repository, so they hold either way.
"""

import json
import sys
import time
import types
from datetime import datetime, timedelta, timezone

import pytest

from memgit.verbs import consolidate as consolidation
from memgit.core import tokens
from memgit.consolidate import _markdown, heuristic
from memgit.errors import LLMError
from memgit.hook import context
from memgit.core.model import Consolidation
from memgit.core.notes import split_front_matter
from memgit.store.repo import MemoryRepo
from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests.conftest import age, all_refs, fsck, git, ledger_commits

ROOT = "/home/demo/dev"
DAY = datetime(2026, 11, 2, 9, 0, tzinfo=timezone.utc)


def session(seed: str, project: str, prompt: str, command: str = "uv run pytest -x tests/", day: int = 0):
    return (SessionWriter(session_id(seed), f"{ROOT}/{project}", start=DAY + timedelta(days=day))
            .user(prompt)
            .bash(command, "collected 9 items\n\n9 passed in 0.40s")
            .assistant("Done: the tests pass."))


def write(projects_dir, *writers):
    for i, w in enumerate(writers):
        age(w.write(projects_dir), 7200 - 60 * i)


def sync_and_consolidate(memgit_cli):
    """`memgit sync` alone: it consolidates what changed (`memgit consolidate` is tested on its own below)."""
    result = memgit_cli("sync", "--json")
    assert result.exit_code == 0, result.stderr
    return {"commits": json.loads(result.stdout)["consolidated"]}


def head_subject(repo, branch):
    return git(repo, "log", "-1", "--format=%s", branch).strip()


def trailer(repo, rev, key):
    return git(repo, "log", "-1", f"--format=%(trailers:key={key},valueonly)", rev).strip()


def pinion_sessions(n: int, project: str = "pinion", prompt: str = "Fix the flaky export test."):
    return [session(f"{project}-{i}", project, prompt, day=i) for i in range(n)]


def links_exist(repo, branch, text, base=""):
    files = set(git(repo, "ls-tree", "-r", "--name-only", branch).split())
    targets = [t for t in _markdown.links(text) if _markdown.is_relative(t)]
    missing = [t for t in targets if _markdown.resolve(t, base) not in files]
    assert not missing, missing
    return targets


# ---- project branches ---------------------------------------------------------------------


def test_consolidate_commits_memory_summary_and_a_skill_with_its_trailers(claude_projects, memory_path, memgit_cli):
    write(claude_projects, *pinion_sessions(3), session("l1", "lantern", "Rename the CSS tokens."))
    sync_and_consolidate(memgit_cli)
    branch = "projects/pinion"
    assert head_subject(memory_path, branch) == "consolidate(pinion): 3 notes, 1 learning"
    assert trailer(memory_path, branch, "Memgit-Through") == git(memory_path, "rev-parse", f"{branch}^").strip()
    assert trailer(memory_path, branch, "Memgit-Consolidator") == heuristic.CONSOLIDATOR
    assert trailer(memory_path, branch, "Memgit-Tokens") == "0"
    parsed = git(memory_path, "log", "-1", "--format=%B", branch)
    assert "Memgit-Through:" in git_interpret_trailers(memory_path, parsed)
    files = git(memory_path, "ls-tree", "-r", "--name-only", branch).split()
    assert {"MEMORY.md", "memory_summary.md", "skills/pinion-run-tests/SKILL.md"} <= set(files)
    memory = git(memory_path, "show", f"{branch}:MEMORY.md")
    assert len(links_exist(memory_path, branch, memory)) == 4  # 3 sessions + the skill
    skill = git(memory_path, "show", f"{branch}:skills/pinion-run-tests/SKILL.md")
    meta, body = split_front_matter(skill)
    assert meta["name"] == "pinion-run-tests" and "`uv run pytest -x tests/`" in meta["description"]
    assert len(links_exist(memory_path, branch, skill, "skills/pinion-run-tests")) == 3
    summary = git(memory_path, "show", f"{branch}:memory_summary.md")
    assert tokens.count(summary) <= 2500 and "Test: `uv run pytest -x tests/`" in summary
    assert head_subject(memory_path, "projects/lantern").startswith("consolidate(lantern): 1 note, ")
    assert head_subject(memory_path, "main").startswith("consolidate(main): ")
    fsck(memory_path)
    assert git(memory_path, "status", "--porcelain") == ""
    assert (memory_path / "MEMORY.md").is_file()  # main is checked out: its worktree follows


def git_interpret_trailers(repo, message):
    import subprocess

    return subprocess.run(["git", "-C", str(repo), "interpret-trailers", "--parse"], input=message,
                          capture_output=True, text=True, check=True).stdout


def test_nothing_new_changes_nothing(claude_projects, memory_path, memgit_cli):
    write(claude_projects, *pinion_sessions(3))
    sync_and_consolidate(memgit_cli)
    before = all_refs(memory_path)
    assert sync_and_consolidate(memgit_cli)["commits"] == []
    assert all_refs(memory_path) == before
    with MemoryRepo.open(memory_path) as repo:
        assert not consolidation.pending(repo, "projects/pinion") and not consolidation.global_pending(repo)


def test_a_new_session_is_consolidated_incrementally_and_the_global_scope_follows(claude_projects, memory_path,
                                                                                  memgit_cli):
    write(claude_projects, *pinion_sessions(2))
    sync_and_consolidate(memgit_cli)
    assert "skills/" not in git(memory_path, "ls-tree", "-r", "--name-only", "projects/pinion")
    main_before = git(memory_path, "rev-parse", "main").strip()
    write(claude_projects, session("pinion-2", "pinion", "Fix the flaky export test.", day=5))
    sync_and_consolidate(memgit_cli)
    assert "skills/pinion-run-tests/SKILL.md" in git(memory_path, "ls-tree", "-r", "--name-only", "projects/pinion")
    read = trailer(memory_path, "main", "Memgit-Read")
    assert f"projects/pinion {git(memory_path, 'rev-parse', 'projects/pinion').strip()}" in read
    assert git(memory_path, "rev-parse", "main").strip() != main_before


def test_a_skip_commit_leaves_a_scope_consolidated(claude_projects, memory_path, memgit_cli):
    write(claude_projects, *pinion_sessions(1))
    sync_and_consolidate(memgit_cli)
    with MemoryRepo.open(memory_path) as repo:
        repo.commit("projects/pinion", {}, "skip(pinion): abc nothing worth keeping\n", allow_empty=True)
        assert not consolidation.pending(repo, "projects/pinion")
        repo.commit("projects/pinion", {"notes/2026-11-20-mine.md": b"Ship on Tuesdays.\n"}, "remember(pinion): x\n")
        assert consolidation.pending(repo, "projects/pinion")


# ---- reverts ------------------------------------------------------------------------------


def git_revert(repo, branch, sha, tmp_path):
    """Revert `sha` on `branch` with the real git CLI, in a worktree of that branch."""
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", str(wt), branch)
    git(wt, "-c", "user.name=Person", "-c", "user.email=person@example.com", "revert", "--no-edit", sha)
    git(repo, "worktree", "remove", str(wt))


def test_reverting_an_extraction_drops_its_learnings_and_a_skill_that_no_longer_qualifies(
        claude_projects, memory_path, memgit_cli, tmp_path):
    writers = pinion_sessions(3)
    writers[0].user("Thanks. Never use print for logging here; use structlog.").assistant("Noted.")
    write(claude_projects, *writers)
    sync_and_consolidate(memgit_cli)
    branch = "projects/pinion"
    with MemoryRepo.open(memory_path) as repo:  # a person's own skill: memgit leaves it alone
        repo.commit(branch, {"skills/my-deploy/SKILL.md": b"---\nname: my-deploy\ndescription: Deploy.\n---\nSteps.\n"},
                    "remember(pinion): my deploy skill\n")
    assert "structlog" in git(memory_path, "show", f"{branch}:MEMORY.md")
    [extract] = [r for r in ledger_commits(memory_path)
                 if r["kind"] == "extract" and r["session"].endswith(writers[0].session_id)]
    git_revert(memory_path, branch, extract["sha"], tmp_path)
    sync_and_consolidate(memgit_cli)
    memory = git(memory_path, "show", f"{branch}:MEMORY.md")
    assert "structlog" not in memory and "uv run pytest" in memory and "2 sessions" in memory
    links_exist(memory_path, branch, memory)
    files = git(memory_path, "ls-tree", "-r", "--name-only", branch).split()
    assert "skills/pinion-run-tests/SKILL.md" not in files and "skills/my-deploy/SKILL.md" in files
    assert "-pinion-run-tests" in git(memory_path, "log", "-1", "--format=%b", branch)
    fsck(memory_path)


# ---- across projects ----------------------------------------------------------------------


def test_a_preference_in_two_projects_reaches_main_with_both_named(claude_projects, memory_path, memgit_cli):
    write(claude_projects,
          session("p1", "pinion", "Fix the export. Don't put emoji in commit messages."),
          session("l1", "lantern", "Rename the tokens. Don't put emoji in commit messages."),
          session("l2", "lantern", "Tidy the CSS. Always use rem units, never px."))
    sync_and_consolidate(memgit_cli)
    memory = git(memory_path, "show", "main:MEMORY.md")
    [bullet] = [b for s in _markdown.sections(memory) if s.heading == "Preferences" for b in s.bullets]
    assert "Don't put emoji in commit messages." in bullet.text and "(lantern, pinion)" in bullet.text
    assert "rem units" not in memory  # one project only
    for ref in ("projects/pinion:sessions/", "projects/lantern:sessions/"):
        path = bullet.text.split(ref, 1)[1].split("`", 1)[0]
        assert git(memory_path, "cat-file", "-t", f"{ref}{path}").strip() == "blob"
    summary = (memory_path / "memory_summary.md").read_text()
    assert "Don't put emoji in commit messages. (seen in lantern, pinion)" in summary
    assert tokens.count(summary) <= 2500


def test_pinned_notes_of_main_are_in_its_summary(claude_projects, memory_path, memgit_cli):
    write(claude_projects, *pinion_sessions(1))
    sync_and_consolidate(memgit_cli)
    with MemoryRepo.open(memory_path) as repo:
        repo.commit("main", {"notes/2026-11-20-utc.md": b"# Time\nI work in UTC; write dates as ISO 8601.\n"},
                    "remember(main): I work in UTC\n")
    result = memgit_cli("consolidate", "--global")
    assert result.exit_code == 0 and "consolidate(main)" in result.stdout
    assert "Time: I work in UTC; write dates as ISO 8601." in (memory_path / "memory_summary.md").read_text()
    assert "[notes/2026-11-20-utc.md](notes/2026-11-20-utc.md)" in (memory_path / "MEMORY.md").read_text()


# ---- the command --------------------------------------------------------------------------


def test_consolidate_command_scopes_and_errors(claude_projects, memory_path, memgit_cli):
    write(claude_projects, *pinion_sessions(1), session("l1", "lantern", "Rename the CSS tokens."))
    memgit_cli("sync")
    only = memgit_cli("consolidate", "--project", "pinion", "--force", "--json")
    assert only.exit_code == 0
    assert {c["branch"] for c in json.loads(only.stdout)["commits"]} <= {"projects/pinion"}
    assert head_subject(memory_path, "projects/pinion").startswith("consolidate(pinion)")
    both = json.loads(memgit_cli("consolidate", "--json").stdout)
    assert set(both) == {"ok", "commits"} and all(c["sha"] for c in both["commits"])
    again = memgit_cli("consolidate")
    assert again.stdout.strip() == "nothing to consolidate: every scope is up to date"
    missing = memgit_cli("consolidate", "--project", "nope")
    assert missing.exit_code == 12 and missing.stderr.startswith("Error: no project matches 'nope'")
    assert "Example: memgit consolidate" in memgit_cli("consolidate", "--help").stdout


def test_consolidate_renders_the_hooks_context_again(claude_projects, memory_path, memgit_cli):
    """After `memgit consolidate` rewrites a summary, the session-start context serves it from its
    cache, without a sync in between and without rendering anything itself."""
    write(claude_projects, *pinion_sessions(1))
    memgit_cli("sync")
    cwd = f"{ROOT}/pinion"
    with MemoryRepo.open(memory_path) as repo:  # a person pins a note: the summary is out of date
        repo.commit("projects/pinion", {"notes/2026-11-20-mine.md": b"Ship on Tuesdays, never on Fridays.\n"},
                    "remember(pinion): ship on tuesdays\n")
    before = git(memory_path, "show", "projects/pinion:memory_summary.md")
    assert "Ship on Tuesdays" not in before

    done = memgit_cli("consolidate", "--project", "pinion", "--json")
    assert done.exit_code == 0, done.stderr
    assert [c["branch"] for c in json.loads(done.stdout)["commits"]] == ["projects/pinion"]
    after = git(memory_path, "show", "projects/pinion:memory_summary.md")
    new = [line for line in after.splitlines() if line.startswith("- ") and line not in before.splitlines()]
    assert any("Ship on Tuesdays" in line for line in new), after

    served = context.serve(str(memory_path), cwd, now=time.time())
    assert served.branch == "projects/pinion"
    assert served.cached, "the hook had to render the context itself: consolidate left its cache stale"
    for line in new:
        assert line in served.text
    shown = json.loads(memgit_cli("context", "--cwd", cwd, "--json").stdout)
    assert shown["context"] == served.text
    fsck(memory_path)


# ---- the LLM seam -------------------------------------------------------------------------


@pytest.fixture
def fake_llm(monkeypatch):
    """memgit.consolidate.llm replaced by a module whose behaviour each test sets."""
    module = types.ModuleType("memgit.consolidate.llm")
    module.calls = []
    module.behaviour = "ok"

    def consolidate(*, scope, notes, added, removed, current, pinned, cfg, team=()):
        module.calls.append({"scope": scope, "notes": [p for p, _ in notes], "added": [p for p, _ in added],
                             "removed": [p for p, _ in removed], "current": current is not None})
        if module.behaviour == "fail":
            raise LLMError("the model timed out")
        summary = "# s\n\nShort.\n" if module.behaviour == "ok" else "word\n" * 3000
        return Consolidation(f"# Memory\n\n## Facts\n\n- [fact] From the model. — [n]({notes[0][0]})\n", summary,
                             consolidator="openai/fake", tokens=1234, prompt="sha256:abc")

    def consolidate_global(*, projects, current, pinned, cfg):
        return Consolidation("# Global\n\n## Preferences\n\n- [preference] x\n", "# g\n\nShort.\n",
                             consolidator="openai/fake", tokens=10, prompt="sha256:def")

    module.consolidate, module.consolidate_global = consolidate, consolidate_global
    monkeypatch.setitem(sys.modules, "memgit.consolidate.llm", module)
    monkeypatch.setenv("MEMGIT_CONSOLIDATE_MODEL", "openai/fake")
    return module


def test_the_llm_consolidator_gets_init_then_the_notes_added_and_removed(claude_projects, memory_path, memgit_cli,
                                                                         fake_llm, tmp_path):
    writers = pinion_sessions(2)
    write(claude_projects, *writers)
    sync_and_consolidate(memgit_cli)
    first = [c for c in fake_llm.calls if c["scope"] == "pinion"][-1]
    assert not first["current"] and len(first["added"]) == 2 and first["removed"] == []
    branch = "projects/pinion"
    assert trailer(memory_path, branch, "Memgit-Consolidator") == "openai/fake"
    assert trailer(memory_path, branch, "Memgit-Prompt") == "sha256:abc"
    assert trailer(memory_path, branch, "Memgit-Tokens") == "1234"
    assert trailer(memory_path, "main", "Memgit-Consolidator") == "openai/fake"
    [extract] = [r for r in ledger_commits(memory_path) if r["session"].endswith(writers[0].session_id)]
    git_revert(memory_path, branch, extract["sha"], tmp_path)
    write(claude_projects, session("pinion-9", "pinion", "Fix the flaky export test.", day=9))
    sync_and_consolidate(memgit_cli)
    last = [c for c in fake_llm.calls if c["scope"] == "pinion"][-1]
    assert last["current"] and len(last["added"]) == 1 and len(last["removed"]) == 1
    assert last["removed"][0] not in last["notes"] and last["added"][0] in last["notes"]


@pytest.mark.parametrize("behaviour,reason", [
    ("fail", "the LLM consolidator failed: the model timed out"),
    ("too-long", "the LLM consolidator's output was refused: memory_summary.md has"),
    ("absent", "the LLM consolidator is not available"),
])
def test_without_a_usable_llm_the_heuristic_stands_in_and_says_why(claude_projects, memory_path, memgit_cli,
                                                                  fake_llm, monkeypatch, behaviour, reason):
    if behaviour == "absent":
        monkeypatch.setitem(sys.modules, "memgit.consolidate.llm", None)  # import raises ImportError
    fake_llm.behaviour = behaviour
    write(claude_projects, *pinion_sessions(1))
    sync_and_consolidate(memgit_cli)
    branch = "projects/pinion"
    assert trailer(memory_path, branch, "Memgit-Consolidator") == heuristic.CONSOLIDATOR
    assert f"Fell back to {heuristic.CONSOLIDATOR}: {reason}" in git(memory_path, "log", "-1", "--format=%b", branch)
    assert "uv run pytest" in git(memory_path, "show", f"{branch}:MEMORY.md")
