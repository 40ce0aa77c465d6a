"""Editor and OS litter in the memory repo's worktree (.DS_Store, swap files, IDE folders) is never
committed as a person's `edit`: new repos ship a .gitignore, older ones get it at their next sync
in a commit that says so, and memgit's edit detection leaves the litter out even without it."""

from __future__ import annotations

import json
from pathlib import Path

from memgit.store.repo import MemoryRepo
from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from memgit.store.edits import ALWAYS_IGNORED
from tests.conftest import ROOT, age, fsck, git, ledger_commits

LITTER = [".DS_Store", "sessions/.DS_Store", "README.md.swp", ".MEMORY.md.swo", "notes.md~", ".#MEMORY.md",
          "#MEMORY.md#", "Thumbs.db", "._README.md", ".idea/workspace.xml", ".vscode/settings.json"]


def write_session(projects, seed: str, idle: float = 7200) -> str:
    w = SessionWriter(session_id(seed), "/home/demo/dev/pinion")
    w.user(f"{seed}: make the exporter write CSV. Always use the csv module, never hand-rolled joins.")
    w.bash("uv run pytest tests/test_export.py", "5 passed in 0.40s")
    age(w.write(projects), idle)
    return f"claude-code/{w.session_id}"


def drop_litter(repo: Path) -> None:
    for name in LITTER:
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"\x00litter\n")


def edit_commits(repo: Path) -> list[str]:
    return [s for s in git(repo, "log", "--all", "--format=%s").splitlines() if s.startswith("edit(")]


def test_litter_in_a_new_repo_is_ignored_by_git_and_never_an_edit(claude_projects, memory_path, memgit_cli):
    first = write_session(claude_projects, "junk-1", idle=9000)
    assert memgit_cli("sync").exit_code == 0
    assert ".gitignore" in git(memory_path, "ls-tree", "--name-only", "main").split()
    assert git(memory_path, "config", "memgit.skeleton").strip() == "2"
    drop_litter(memory_path)
    assert git(memory_path, "status", "--porcelain") == ""  # git itself leaves the litter out
    second = write_session(claude_projects, "junk-2")
    result = memgit_cli("sync", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["extracted"] == 1
    assert edit_commits(memory_path) == []
    assert {r["session"] for r in ledger_commits(memory_path)} == {first, second}
    tracked = git(memory_path, "ls-tree", "-r", "--name-only", "main").split()
    assert not set(LITTER) & set(tracked)
    fsck(memory_path)


def old_repo(path: Path) -> None:
    """A repository as memgit made it before the .gitignore shipped: README.md only, no skeleton version."""
    MemoryRepo.init(path, {"README.md": b"# Memory repository (memgit)\n"}, author="memgit <memgit@localhost>").close()


def test_an_older_repo_gets_the_gitignore_once_in_a_commit_that_says_so(claude_projects, memory_path, memgit_cli):
    old_repo(memory_path)
    drop_litter(memory_path)
    (memory_path / "notes").mkdir()
    (memory_path / "notes" / "mine.md").write_text("A person's own note.\n")
    first = write_session(claude_projects, "old-1")
    result = memgit_cli("sync", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["extracted"] == 1, result.stderr

    [edit] = edit_commits(memory_path)  # the person's note, and only it
    assert edit == "edit(main): 1 file(s) changed by hand"
    edit_sha = git(memory_path, "log", "--format=%H", "--grep=^edit(", "main").split()[0]
    assert git(memory_path, "show", "--name-only", "--format=", edit_sha).split() == ["notes/mine.md"]
    added = git(memory_path, "log", "--format=%H%x1f%s%x1f%b", "--grep=add .gitignore", "main").split("\x1f")
    assert added[1] == "init(main): add .gitignore from memgit's template"
    assert "never commits them as a person's edit" in added[2]
    assert git(memory_path, "show", "--name-only", "--format=", added[0].strip()).split() == [".gitignore"]
    assert git(memory_path, "status", "--porcelain") == ""
    assert git(memory_path, "config", "memgit.skeleton").strip() == "2"
    assert {r["session"] for r in ledger_commits(memory_path)} == {first}
    fsck(memory_path)

    # A person who removes it is not overruled: the version is recorded, the file not brought back.
    git(memory_path, "rm", "-q", ".gitignore")
    git(memory_path, "-c", "user.name=p", "-c", "user.email=p@x", "commit", "-q", "-m", "no .gitignore for me")
    second = write_session(claude_projects, "old-2", idle=7000)
    assert memgit_cli("sync").exit_code == 0
    assert ".gitignore" not in git(memory_path, "ls-tree", "--name-only", "main").split()
    assert edit_commits(memory_path) == [edit]  # and the litter is still never an edit
    assert {r["session"] for r in ledger_commits(memory_path)} == {first, second}
    fsck(memory_path)


def test_the_upgrade_reaches_project_branches_that_lack_it(claude_projects, memory_path, memgit_cli):
    old_repo(memory_path)
    write_session(claude_projects, "branch-1")
    assert memgit_cli("sync").exit_code == 0
    # projects/pinion was forked from main's first commit, older than the .gitignore: as an older
    # repository's project branches are. With the upgrade still to do, it gets the file too.
    assert ".gitignore" not in git(memory_path, "ls-tree", "--name-only", "projects/pinion").split()
    git(memory_path, "config", "memgit.skeleton", "1")
    write_session(claude_projects, "branch-2", idle=7000)
    assert memgit_cli("sync").exit_code == 0
    for branch in ("main", "projects/pinion"):
        assert ".gitignore" in git(memory_path, "ls-tree", "--name-only", branch).split(), branch
    assert sorted(git(memory_path, "log", "--format=%s", "--grep=add .gitignore", "--all").splitlines()) == [
        "init(main): add .gitignore from memgit's template", "init(pinion): add .gitignore from memgit's template"]
    fsck(memory_path)


def test_the_template_gitignore_holds_every_pattern_the_edit_detection_leaves_out():
    shipped = (ROOT / "templates" / "repo" / ".gitignore").read_text().splitlines()
    assert set(ALWAYS_IGNORED) <= set(shipped)
