"""Team memory (issue 22): three people, three HOMEs, one bare team remote (and `git daemon`).

Each person shares the project `app` (checked out at a different path on each machine, one origin
URL given in ssh and https forms) with the team `acme`; what they learn reaches the others' MEMORY.md
with their names on it, while `main`, private notes and unshared projects never leave their machine.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests import servers
from tests.conftest import age, fsck, git, point_home
from tests.integration.test_hooks import make_git_project
from tests.servers import git_daemon  # noqa: F401  (fixture)

SSH = "git@github.com:acme/app.git"
HTTPS = "https://github.com/acme/app.git"


class Person:
    """One HOME: git's user.email, the agent's transcripts, the project checkout, the memory repository."""

    def __init__(self, home: Path, email: str, monkeypatch, cli):
        self.home, self.mp, self.cli = home, monkeypatch, cli
        self.memory = home / ".local" / "share" / "memgit"
        self.projects = home / ".claude" / "projects"
        self.projects.mkdir(parents=True, exist_ok=True)
        (home / ".gitconfig").write_text(f"[user]\n\tname = {email}\n\temail = {email}\n")

    def run(self, *args: str, ok: bool = True, input: str | None = None):
        point_home(self.mp, self.home)
        result = self.cli(*args, input=input)
        if ok:
            assert result.exit_code == 0, f"memgit {' '.join(args)}: {result.stdout}{result.stderr}"
        return result

    def json(self, *args: str) -> dict:
        return json.loads(self.run(*args, "--json").stdout)

    def session(self, cwd: Path, seed: str, lesson: str) -> str:
        writer = (SessionWriter(session_id(seed), str(cwd))
                  .user(f"The build is broken, fix it. {lesson}")
                  .bash("make test", "collected 3 items\n\n3 passed in 0.2s")
                  .user(f"Thanks. Remember: {lesson}"))
        age(writer.write(self.projects))
        return writer.session_id

    def show(self, rev: str, path: str) -> str:
        return git(self.memory, "show", f"{rev}:{path}")


def remote_refs(bare: Path) -> list[str]:
    out = git(bare, "for-each-ref", "--format=%(refname)")
    return sorted(out.split())


@pytest.fixture
def team(tmp_path, monkeypatch, memgit_cli):
    ana = Person(tmp_path / "ana", "ana@acme.dev", monkeypatch, memgit_cli)
    ben = Person(tmp_path / "ben", "ben.k@acme.dev", monkeypatch, memgit_cli)
    cy = Person(tmp_path / "cy", "cy@acme.dev", monkeypatch, memgit_cli)
    bare = servers.bare_repo(tmp_path / "team.git")
    return ana, ben, cy, bare


def test_only_shared_projects_travel_under_each_persons_own_refs(team):
    ana, ben, cy, bare = team
    app_a = make_git_project(ana.home / "dev" / "app", SSH)
    tool_a = make_git_project(ana.home / "dev" / "tool", "https://example.org/ana/tool.git")
    old_b = make_git_project(ben.home / "old" / "app", None)  # another project of ben's named app
    app_b = make_git_project(ben.home / "src" / "work" / "app", HTTPS)  # another path, another form
    ana.session(app_a, "ana-1", "Always run `make lint` before pushing.")
    ana.session(tool_a, "ana-2", "The tool's config lives in `~/.toolrc`.")
    ben.session(old_b, "ben-0", "The old app is frozen.")
    ben.run("sync")
    ben.session(app_b, "ben-1", "Always run `make lint` before pushing.")
    for p in (ana, ben):
        p.run("sync")
    ana.run("remember", "--global", "Answer in English.")
    ana.run("remember", "--project", "app", "--private", "My staging password hint is the cat's name.")
    ana.run("remember", "--project", "app", "Releases are cut on Tuesdays.")

    joined = ana.json("team", "add", "acme", str(bare))
    assert joined["person"] == "ana" and "user.email" in joined["how"]
    assert ben.json("team", "add", "acme", str(bare))["person"] == "ben-k"
    ana.run("share", "app", "--team", "acme")
    ben.run("share", "app-2", "--team", "acme")
    listed = ana.json("team", "list")["teams"]
    assert listed[0]["name"] == "acme" and listed[0]["person"] == "ana" and listed[0]["shared"] == ["app"]

    pushed = ana.json("push", "acme")
    assert list(pushed["updated"]) == ["people/ana/projects/app"]
    ben.run("push", "acme")
    assert remote_refs(bare) == ["refs/heads/people/ana/projects/app", "refs/heads/people/ben-k/projects/app-2"]
    tree = git(bare, "ls-tree", "-r", "--name-only", "people/ana/projects/app").split()
    assert "PROJECT.md" in tree and any(p.startswith("sessions/") for p in tree)
    assert any(p.startswith("notes/") and "tuesdays" in p for p in tree)
    assert not any("password" in p or "staging" in p for p in tree), tree  # the private note stays home
    assert "MEMORY.md" not in tree and "memory_summary.md" not in tree
    assert "English" not in git(bare, "log", "-p", "--all") and "toolrc" not in git(bare, "log", "-p", "--all")

    # pushing again with nothing new is a no-op; a new session is one fast-forward share commit
    assert "up to date" in ana.run("push", "acme").stdout
    ana.session(app_a, "ana-3", "Never commit `.env.local`.")
    ana.run("sync")
    first = git(bare, "rev-parse", "people/ana/projects/app").strip()
    ana.run("push", "acme")
    second = git(bare, "rev-parse", "people/ana/projects/app").strip()
    assert git(bare, "rev-parse", f"{second}^").strip() == first
    log = git(bare, "log", "--format=%an|%s", "people/ana/projects/app")
    assert log.splitlines()[0].startswith("ana|share(app): ana: 1 new session note(s)"), log

    # main, and anything forced, is refused in one line
    forced = ana.run("push", "acme", "--force", ok=False)
    assert forced.exit_code == 13 and "team remote" in forced.stderr and len(forced.stderr.strip().splitlines()) == 1
    refused = ana.run("share", "main", "--team", "acme", ok=False)
    assert refused.exit_code == 13 and "never goes to a team" in refused.stderr

    # ben pulls: ana's project is his `application` (the same origin in another form)
    pulled = ben.json("pull", "acme")
    assert {r["branch"]: r["into"] for r in pulled["branches"]} == {"people/ana/projects/app": "projects/app-2"}
    assert git(ben.memory, "for-each-ref", "--format=%(refname)", "refs/memgit/team/acme/").split() == [
        "refs/memgit/team/acme/ana/projects/app", "refs/memgit/team/acme/ben-k/projects/app-2"]
    fsck(ben.memory)
    fsck(bare)

    # unsharing deletes the person's own ref at the next push
    ana.run("unshare", "app", "--team", "acme")
    ana.run("push", "acme")
    assert remote_refs(bare) == ["refs/heads/people/ben-k/projects/app-2"]
    del cy
