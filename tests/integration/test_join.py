"""Two machines, each with its own memory repository made by the real `memgit sync`, joined after a
`git fetch` of the other's branches (what the transport leaves under refs/remotes/origin/).

Every repository here is built from synthetic Claude Code transcripts; the join is checked with
the git CLI (`git fsck --strict`, `git log --graph`, parents, refs) and by what a person reads:
the notes of both machines on one branch, the same derived files on both sides, nothing re-read.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memgit import config
from memgit.core import scopes
from memgit.sources.claude_code.synthetic import SessionWriter, encode_project_dir, session_id
from memgit.store.repo import MemoryRepo
from memgit.verbs import consolidate, pull, sync
from memgit.verbs.selection import SyncOptions
from tests.conftest import age, fsck, git, ledger_commits
from tests.faults import memgit_env
from tests.integration.test_hooks import make_git_project

PINION = "git@github.com:acme/pinion.git"
DERIVED = ("MEMORY.md", "memory_summary.md")

# What a session says, by seed: each machine learns something of its own.
SAYS = {
    "tests": ("The export tests fail, fix them. Always run the tests with `uv run pytest`.",
              "uv run pytest -x tests/", "collected 12 items\n\n12 passed in 0.81s"),
    "emoji": ("Don't put emoji in commit messages. Fix the lint errors.", "ruff check .", "All checks passed!"),
    "docker": ("The compose stack fails with port 8108 in use. Always stop the stale typesense container first.",
               "docker rm -f typesense", "typesense"),
    "types": ("We decided to keep the API typed with mypy --strict. Run the type checks.", "mypy --strict src/",
              "Success: no issues found in 14 source files"),
    "docs": ("Never edit the generated docs by hand; run `make docs` instead.", "make docs", "docs built"),
}


class Machine:
    """One person's machine: a HOME with Claude Code transcripts and a memory repository."""

    def __init__(self, root: Path, name: str):
        self.name = name
        self.home = root / name
        self.home.mkdir(parents=True)
        self.env = memgit_env(self.home, MEMGIT_MIN_IDLE_MINUTES="0", MEMGIT_MAX_AGE_DAYS="0")
        self.cfg = config.load(self.env)
        self.repo = self.cfg.repo_path

    def project(self, name: str, remote: str | None) -> Path:
        return make_git_project(self.home / "dev" / name, remote)

    def session(self, cwd: Path, seed: str, says: str | None = None) -> Path:
        ask, command, output = SAYS[says or seed]
        w = SessionWriter(session_id(seed), str(cwd)).user(ask).bash(command, output).user("Thanks, that works.")
        path = w.write(self.cfg.claude_projects)
        age(path)
        return path

    def sync(self):
        return sync.run(self.cfg, SyncOptions())

    def fetch(self, other: Machine) -> None:
        git(self.repo, "fetch", "-q", str(other.repo), "+refs/heads/*:refs/remotes/origin/*")

    def join(self) -> pull.Joined:
        with self.open() as repo:
            return pull.join(repo, self.cfg, "origin")

    def open(self) -> MemoryRepo:
        return MemoryRepo.open(self.repo, author=self.cfg.author, extra_patterns=self.cfg.extra_redact_patterns)

    def branches(self) -> dict[str, str]:
        out = git(self.repo, "for-each-ref", "--format=%(refname:short) %(objectname)", "refs/heads")
        return dict(line.split() for line in out.splitlines())

    def show(self, branch: str, path: str) -> str:
        return git(self.repo, "show", f"{branch}:{path}")

    def notes(self, branch: str) -> list[str]:
        return sorted(git(self.repo, "ls-tree", "-r", "--name-only", branch, "sessions/").split())


def outcomes(joined: pull.Joined) -> dict[str, str]:
    return {b.branch: b.outcome for b in joined.branches}


def parents(m: Machine, rev: str) -> list[str]:
    return git(m.repo, "log", "-1", "--format=%P", rev).split()


@pytest.fixture
def two(tmp_path):
    """Machines a and b, each with the project pinion (same origin) and different sessions synced."""
    a, b = Machine(tmp_path, "a"), Machine(tmp_path, "b")
    pa, pb = a.project("pinion", PINION), b.project("pinion", PINION)
    a.session(pa, "tests")
    a.session(pa, "emoji")
    b.session(pb, "docker")
    b.session(pb, "types")
    a.sync()
    b.sync()
    return a, b


def test_unrelated_histories_join_into_one_branch_with_both_machines_notes(two):
    a, b = two
    notes_a, notes_b = a.notes("projects/pinion"), b.notes("projects/pinion")
    old_head = a.branches()["projects/pinion"]
    a.fetch(b)
    joined = a.join()
    assert joined.ok, joined
    assert outcomes(joined) == {"main": "merged", "projects/pinion": "merged"}
    assert a.notes("projects/pinion") == sorted(notes_a + notes_b)
    head = a.branches()["projects/pinion"]
    # The merge commit is under the consolidation that regenerated the derived files.
    merge = git(a.repo, "log", "--merges", "-1", "--format=%H%x1f%s%x1f%(trailers:key=Memgit-Merged,valueonly)",
                "projects/pinion").strip().split("\x1f")
    assert merge[1] == "merge(pinion): join origin/projects/pinion"
    assert merge[2].strip() == b.branches()["projects/pinion"]
    assert parents(a, merge[0]) == [old_head, b.branches()["projects/pinion"]]
    assert git(a.repo, "log", "-1", "--format=%s", head).startswith("consolidate(pinion):")
    graph = git(a.repo, "log", "--graph", "--oneline", "projects/pinion")
    assert "|\\" in graph and "join origin/projects/pinion" in graph
    # PROJECT.md holds both machines' paths (ours first), one remote, our name.
    project = scopes.parse_project_md(a.show("projects/pinion", "PROJECT.md"), "projects/pinion")
    assert project.paths == (str(a.home / "dev" / "pinion"), str(b.home / "dev" / "pinion"))
    assert [scopes.normalise_remote(r) for r in project.remotes] == ["github.com/acme/pinion"]
    # The regenerated memory holds what each machine learned.
    memory = a.show("projects/pinion", "MEMORY.md")
    assert "uv run pytest" in memory and "typesense" in memory
    assert joined.consolidated and "pinion" in joined.consolidated
    fsck(a.repo)
    assert git(a.repo, "status", "--porcelain") == ""  # the checked-out main's worktree follows


def test_both_sides_end_with_identical_derived_files_and_nothing_is_read_twice(two, tmp_path):
    a, b = two
    a.fetch(b)
    b.fetch(a)
    assert a.join().ok and b.join().ok
    for branch in ("projects/pinion", "main"):
        for path in DERIVED:
            assert a.show(branch, path) == b.show(branch, path), (branch, path)
        assert a.notes(branch) == b.notes(branch)
    # b's session reaches a's disk (a synced home folder, say): it was read on b, so not again here.
    shutil.copytree(b.cfg.claude_projects, a.cfg.claude_projects, dirs_exist_ok=True)
    for path in a.cfg.claude_projects.rglob("*.jsonl"):
        age(path)
    before = git(a.repo, "rev-list", "--all", "--count")
    assert len(list(a.cfg.claude_projects.rglob("*.jsonl"))) == 4
    assert a.sync().results == [] and b.sync().results == []
    assert git(a.repo, "rev-list", "--all", "--count") == before
    sessions = [c["session"] for c in ledger_commits(a.repo)]
    assert len(sessions) == len(set(sessions)) == 4
    # The derived files are the notes' and nothing else's: rebuilt from scratch, they are byte-identical.
    shutil.rmtree(a.cfg.state_dir / "memory")
    with a.open() as repo:
        assert consolidate.run(repo, a.cfg, force=True) == []
    assert git(a.repo, "ls-tree", "-r", "main", "skills") == git(b.repo, "ls-tree", "-r", "main", "skills")
    # Then each pushes to the other: one more round joins nothing new and both heads agree.
    a.fetch(b)
    a.join()
    b.fetch(a)
    second = b.join()
    assert set(outcomes(second).values()) <= {"fast-forward", "up-to-date"}, second
    assert a.branches() == b.branches()
    fsck(a.repo)
    fsck(b.repo)


def test_fast_forward_moves_the_checked_out_worktree_and_keeps_an_unrecorded_edit(two):
    a, b = two
    a.fetch(b)
    a.join()
    b.fetch(a)
    pa_new = a.home / "dev" / "pinion"
    a.session(pa_new, "docs")
    a.sync()
    b.fetch(a)
    (b.repo / "notes").mkdir(exist_ok=True)
    (b.repo / "notes" / "mine.md").write_text("Remember: the staging box is slow.\n")
    joined = b.join()
    assert outcomes(joined)["projects/pinion"] in ("fast-forward", "merged")
    assert b.notes("projects/pinion") == a.notes("projects/pinion")
    # The person's edit was recorded as an `edit` commit before main moved, and is still there.
    assert (b.repo / "notes" / "mine.md").read_text() == "Remember: the staging box is slow.\n"
    assert "edit(main)" in git(b.repo, "log", "--format=%s", "main")
    assert git(b.repo, "status", "--porcelain") == ""
    fsck(b.repo)


def test_a_pure_fast_forward(two, tmp_path):
    a, b = two
    c = Machine(tmp_path, "c")
    git(tmp_path, "clone", "-q", str(a.repo), str(c.repo))  # c starts as a copy of a: main only, the
    assert outcomes(c.join()) == {"main": "up-to-date", "projects/pinion": "created"}  # rest made by the join
    a.session(a.home / "dev" / "pinion", "docs")
    a.sync()
    c.fetch(a)
    joined = c.join()
    assert outcomes(joined) == {"main": "fast-forward", "projects/pinion": "fast-forward"}
    assert c.branches() == a.branches()
    assert (c.repo / "MEMORY.md").read_text() == a.show("main", "MEMORY.md")
    assert git(c.repo, "status", "--porcelain") == ""
    assert outcomes(c.join()) == {"main": "up-to-date", "projects/pinion": "up-to-date"}


def test_a_conflict_is_reported_with_its_paths_and_leaves_its_branch_alone(two):
    a, b = two
    a.fetch(b)
    a.join()
    b.fetch(a)
    b.join()  # one history now; then both edit the same pinned note differently
    for m, text in ((a, "Deploy on Tuesdays.\n"), (b, "Deploy on Thursdays.\n")):
        with m.open() as repo:
            repo.commit("projects/pinion", {"notes/deploy.md": text.encode()}, "remember(pinion): deploy day\n")
    b.session(b.home / "dev" / "pinion", "docs")
    gear_b = b.project("gear", "git@github.com:acme/gear.git")
    b.session(gear_b, "emoji", says="emoji")
    b.sync()
    before = a.branches()
    a.fetch(b)
    joined = a.join()
    assert not joined.ok
    conflict = next(x for x in joined.branches if x.branch == "projects/pinion")
    assert conflict.outcome == "conflict" and conflict.conflicts == ["notes/deploy.md"]
    assert "notes/deploy.md" in conflict.advice and "pull again" in conflict.advice
    assert joined.conflict_rows() == [{"branch": "projects/pinion", "paths": ["notes/deploy.md"],
                                       "advice": conflict.advice}]
    assert {r["branch"]: r["action"] for r in joined.rows()}["projects/gear"] == "created"
    assert a.branches()["projects/pinion"] == before["projects/pinion"]  # untouched
    assert outcomes(joined)["projects/gear"] == "created"  # the other branches still join
    assert a.branches()["projects/gear"] == b.branches()["projects/gear"]
    fsck(a.repo)


def test_same_remote_under_another_slug_is_renamed_to_the_remotes_name(tmp_path):
    a, b = Machine(tmp_path, "a"), Machine(tmp_path, "b")
    # On a, another project took the slug `pinion` first: acme/pinion got projects/pinion-2.
    a.session(a.project("pinion", "git@github.com:other/pinion.git"), "emoji")
    a.sync()
    (a.home / "dev2").mkdir()
    pa = make_git_project(a.home / "dev2" / "pinion", PINION)
    a.session(pa, "tests")
    a.sync()
    assert {"projects/pinion", "projects/pinion-2"} <= set(a.branches())
    b.session(b.project("pinion", PINION), "docker")
    b.sync()
    notes_here = a.notes("projects/pinion-2")
    git(a.repo, "switch", "-q", "projects/pinion-2")  # a person looking at it: HEAD follows the rename
    a.fetch(b)
    joined = a.join()
    assert joined.ok, joined
    by_name = {x.branch: x for x in joined.branches}
    # b's projects/pinion is acme/pinion; a's projects/pinion is other/pinion: moved aside to a free slug
    # (pinion-2 is taken here), and a's acme/pinion joined under the remote's name.
    assert by_name["projects/pinion"].moved_to == "projects/pinion-3"
    assert by_name["projects/pinion"].outcome == "renamed"
    assert by_name["projects/pinion"].renamed_from == "projects/pinion-2"
    branches = a.branches()
    assert "projects/pinion-2" not in branches and "projects/pinion-3" in branches
    assert set(notes_here) < set(a.notes("projects/pinion"))
    assert git(a.repo, "symbolic-ref", "HEAD").strip() == "refs/heads/projects/pinion"
    assert git(a.repo, "status", "--porcelain") == ""
    assert all((a.repo / note).is_file() for note in a.notes("projects/pinion"))
    assert "projects/pinion-3" in a.show("projects/pinion-3", "memory_summary.md")  # consolidated under its name
    moved = scopes.parse_project_md(a.show("projects/pinion-3", "PROJECT.md"), "projects/pinion-3")
    assert [scopes.normalise_remote(r) for r in moved.remotes] == ["github.com/other/pinion"]
    # A new session of other/pinion still lands on its (moved) branch, acme/pinion's on projects/pinion.
    a.session(a.home / "dev" / "pinion", "docs")
    a.sync()
    assert len(a.notes("projects/pinion-3")) == 2
    fsck(a.repo)


def test_projects_merge_joins_two_identities_and_new_sessions_land_on_the_first(tmp_path, memgit_cli, monkeypatch):
    a = Machine(tmp_path, "a")
    pinion = a.project("pinion", PINION)
    cog = a.project("cog", None)
    a.session(pinion, "tests")
    a.session(cog, "docker")
    a.sync()
    for key, value in a.env.items():
        monkeypatch.setenv(key, value)
    result = memgit_cli("projects", "merge", "pinion", "cog", "--json", "--yes")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["ok"] and data["into"] == "projects/pinion" and data["merged"] == "projects/cog"
    branches = a.branches()
    assert "projects/cog" not in branches
    merge = git(a.repo, "log", "--merges", "-1", "--format=%s", "projects/pinion").strip()
    assert merge == "merge(pinion): join projects/cog"
    project = scopes.parse_project_md(a.show("projects/pinion", "PROJECT.md"), "projects/pinion")
    assert project.name == "pinion" and str(cog) in project.paths and str(pinion) in project.paths
    assert "typesense" in a.show("projects/pinion", "MEMORY.md")  # consolidated with cog's notes
    assert "projects/cog" not in a.show("main", "memory_summary.md")
    a.session(cog, "types")
    a.sync()
    assert len(a.notes("projects/pinion")) == 3 and "projects/cog" not in a.branches()
    listing = memgit_cli("projects", "--json")
    assert [p["branch"] for p in json.loads(listing.stdout)["projects"]] == ["projects/pinion"]
    fsck(a.repo)


def test_a_projects_merge_on_one_machine_is_followed_by_the_other(tmp_path):
    a, b = Machine(tmp_path, "a"), Machine(tmp_path, "b")
    a.session(a.project("pinion", PINION), "tests")
    a.session(a.project("cog", None), "docker")
    a.sync()
    git(tmp_path, "clone", "-q", str(a.repo), str(b.repo))
    git(b.repo, "branch", "projects/cog", "origin/projects/cog")
    git(b.repo, "branch", "projects/pinion", "origin/projects/pinion")
    from memgit.verbs import projects

    projects.merge(a.cfg, "pinion", "cog")
    git(b.repo, "switch", "-q", "projects/cog")  # checked out on b: HEAD and worktree go where it went
    b.fetch(a)
    joined = b.join()
    assert joined.deleted == ["projects/cog"]
    assert "projects/cog" not in b.branches()
    assert b.branches() == a.branches()
    assert git(b.repo, "symbolic-ref", "HEAD").strip() == "refs/heads/projects/pinion"
    assert git(b.repo, "status", "--porcelain") == ""
    assert len(b.notes("projects/pinion")) == 2 and all((b.repo / n).is_file() for n in b.notes("projects/pinion"))
    assert outcomes(b.join()) == {"main": "up-to-date", "projects/pinion": "up-to-date", "projects/cog": "ahead"}


def test_a_secret_on_the_other_machine_is_refused_by_the_gate_and_never_committed(two, tmp_path):
    a, b = two
    key = "AKIA" + "QYLPMN5HHHFPZAM2"  # an AWS access key id, written past memgit by plain git
    side = tmp_path / "side"
    git(b.repo, "worktree", "add", "-q", str(side), "projects/pinion")
    (side / "notes").mkdir(exist_ok=True)
    (side / "notes" / "aws.md").write_text(f"aws_access_key_id = {key}\n")
    git(side, "add", "notes/aws.md")
    git(side, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "by hand")
    before = a.branches()
    a.fetch(b)
    joined = a.join()
    refused = next(x for x in joined.branches if x.branch == "projects/pinion")
    assert refused.outcome == "refused" and "aws" in refused.advice.lower()
    assert a.branches()["projects/pinion"] == before["projects/pinion"]
    assert key not in git(a.repo, "log", "-p", "--branches")
    assert outcomes(joined)["main"] == "merged"


def test_projects_merge_refuses_one_project_twice_and_has_help(tmp_path, memgit_cli, monkeypatch):
    a = Machine(tmp_path, "a")
    a.session(a.project("pinion", PINION), "tests")
    a.sync()
    for key, value in a.env.items():
        monkeypatch.setenv(key, value)
    assert "Example" in memgit_cli("projects", "merge", "--help").stdout
    same = memgit_cli("projects", "merge", "pinion", "projects/pinion")
    assert same.exit_code == 1 and "same project" in same.stderr
    missing = memgit_cli("projects", "merge", "pinion", "nope", "--json")
    assert missing.exit_code == 12 and json.loads(missing.stdout)["error"]["code"] == "no_match"
    assert [p["branch"] for p in json.loads(memgit_cli("projects", "--json").stdout)["projects"]] == ["projects/pinion"]
