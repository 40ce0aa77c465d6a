"""Team memory (issue 22): three people, three HOMEs, one bare team remote (and `git daemon`).

Each person shares the project `app` (checked out at a different path on each machine, one origin
URL given in ssh and https forms) with the team `acme`; what they learn reaches the others' MEMORY.md
with their names on it, while `main`, private notes and unshared projects never leave their machine.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
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

    def session(self, cwd: Path, seed: str, lesson: str, day: int = 20) -> str:
        writer = (SessionWriter(session_id(seed), str(cwd), start=datetime(2026, 11, day, 10, tzinfo=timezone.utc))
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

    # ana's other machine, whose memory lacks what this one shared, may not take it off the team
    ana2 = Person(ana.home.parent / "ana-laptop", "ana@acme.dev", ana.mp, ana.cli)
    laptop = make_git_project(ana2.home / "dev" / "app", SSH)
    ana2.session(laptop, "ana2-1", "Use `make fmt` before committing.")
    ana2.run("sync")
    ana2.run("team", "add", "acme", str(bare))
    ana2.run("share", "app", "--team", "acme")
    assert ana2.run("push", "acme", ok=False).exit_code == 14  # the remote moved: pull the team first
    ana2.run("pull", "acme")
    behind = ana2.run("push", "acme", ok=False)
    assert behind.exit_code == 14 and "memory this one lacks" in behind.stderr
    assert git(bare, "rev-parse", "people/ana/projects/app").strip() == second

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

    # auto_push / auto_pull carry the shared projects at each sync; status and doctor know the team
    (ana.home / ".config" / "memgit").mkdir(parents=True, exist_ok=True)
    (ana.home / ".config" / "memgit" / "config.toml").write_text("[repo]\nauto_push = true\nauto_pull = true\n")
    ana.session(app_a, "ana-4", "Use `make fmt` before committing.")
    assert ana.json("status")["remotes"][0]["unpushed"] == []
    synced = ana.json("sync")
    assert not synced.get("warnings"), synced
    assert git(bare, "rev-parse", "people/ana/projects/app").strip() != second
    assert ana.json("status")["remotes"] == [dict(ana.json("status")["remotes"][0], name="acme", unpushed=[])]
    assert "acme (team): up to date" in ana.run("doctor").stdout

    # a personal branch never reaches a team remote, even asked for by name
    from memgit.errors import RemoteError
    from memgit.store import remote as transport
    from memgit.store.repo import MemoryRepo

    with MemoryRepo.open(ana.memory) as repo, pytest.raises(RemoteError, match="team remote"):
        transport.push(repo, "acme", {"main": repo.head("main")})

    # ben reads ana's notes in his app-2; unsharing deletes ana's ref at her next push, and ben's memory follows
    assert "ana" in ben.show("projects/app-2", "MEMORY.md")
    ana.run("unshare", "app", "--team", "acme")
    ana.run("push", "acme")
    assert remote_refs(bare) == ["refs/heads/people/ben-k/projects/app-2"]
    ben.run("pull", "acme")
    assert "## Team" not in ben.show("projects/app-2", "MEMORY.md")
    ben.run("team", "remove", "acme")
    assert ben.json("team")["teams"] == [] and git(ben.memory, "for-each-ref", "refs/memgit/") == ""

    # without git's user.email the login name stands in, and the output says how to choose one
    (cy.home / ".gitconfig").unlink()
    cy.run("init")
    joined = cy.json("team", "add", "acme", str(bare))
    assert joined["person"] and "git has no user.email" in joined["how"] and "--as NAME" in joined["how"]
    nameless = cy.run("team", "add", "other", str(bare), "--as", "!!!", ok=False)
    assert nameless.exit_code == 2 and "leaves no name" in nameless.stderr and [r["name"] for r in cy.json("remote")["remotes"]] == ["acme"]


def pair(tmp_path, monkeypatch, memgit_cli) -> tuple[Person, Person, Path, dict]:
    """ana and ben, app checked out at another path each (one origin URL, in ssh and https forms), and a
    bare team remote: (ana, ben, the remote, {person: their checkout})."""
    ana = Person(tmp_path / "ana", "ana@acme.dev", monkeypatch, memgit_cli)
    ben = Person(tmp_path / "ben", "ben@acme.dev", monkeypatch, memgit_cli)
    app = {ana: make_git_project(ana.home / "dev" / "app", SSH), ben: make_git_project(ben.home / "src" / "app", HTTPS)}
    return ana, ben, servers.bare_repo(tmp_path / "team.git"), app


def configure(person: Person, text: str) -> None:
    cfile = person.home / ".config" / "memgit" / "config.toml"
    cfile.parent.mkdir(parents=True, exist_ok=True)
    cfile.write_text(text)


def summary_of(person: Person) -> str:
    return person.show("projects/app", "memory_summary.md")


def memory_of(person: Person) -> str:
    return person.show("projects/app", "MEMORY.md")


def bullet(memory: str, words: str) -> str:
    [line] = [line for line in memory.splitlines() if line.startswith("- [") and words in line]
    return line


def test_each_reader_holds_the_teams_learnings_with_their_people(team):
    ana, ben, cy, bare = team
    people = (ana, ben, cy)
    configure(ben, '[team]\nreview = "none"\n')  # ben trusts the team; ana and cy review ("new", the default)
    app = {ana: make_git_project(ana.home / "dev" / "app", SSH),
           ben: make_git_project(ben.home / "src" / "app", HTTPS),
           cy: make_git_project(cy.home / "code" / "acme-app", SSH)}
    ana.session(app[ana], "t-ana-1", "Always run `make lint` before pushing.", day=18)
    ana.session(app[ana], "t-ana-2", "I prefer commit messages without emoji.", day=19)
    ana.session(app[ana], "t-ana-3", "Always use tabs for indentation.", day=19)
    ben.session(app[ben], "t-ben-1", "Always run `make lint` before pushing.", day=20)
    ben.session(app[ben], "t-ben-2", "Never use tabs for indentation.", day=23)
    cy.session(app[cy], "t-cy-1", "Never deploy on Fridays.", day=21)
    for p in people:
        p.run("sync")
        p.run("team", "add", "acme", str(bare))
        p.run("share", "app", "--team", "acme")
    # rounds in any order: each pushes, pulls in between
    ana.run("push", "acme")
    ben.run("pull", "acme")
    ben.run("push", "acme")
    cy.run("push", "acme")
    for p in people:
        p.run("pull", "acme")
    assert remote_refs(bare) == [f"refs/heads/people/{n}/projects/app" for n in ("ana", "ben-k", "cy")]

    # support counts people; a teammate's preference stays theirs; contradictions resolve by time across people
    for reader in people:
        memory = memory_of(reader)
        assert "2 sessions, 2 people" in bullet(memory, "make lint"), memory
        assert "ana prefers commit messages without emoji" in bullet(memory, "emoji") or reader is ana, memory
        superseded = bullet(memory, "~~") if "~~" in memory else ""
        assert "~~Always use tabs" in superseded and 'superseded by ben-k: "Never use tabs' in superseded, memory
    assert "ana prefers" not in memory_of(ana)  # the author's own preference is hers, as ever
    assert "## Team" in memory_of(cy) and "refs/memgit/team/acme/ana/projects/app" in memory_of(cy)
    for reader in (ben, cy):
        assert "emoji" not in summary_of(reader)  # one teammate's preference never reaches a briefing
    assert "emoji" in summary_of(ana)

    # review gating: cy ("new") is told make lint once accepted; ben ("none") at once
    assert "make lint" not in summary_of(cy) and "make lint" in summary_of(ben)
    queue = cy.json("review", "--team")["learnings"]
    assert any("make lint" in x["text"] and x["people"] == ["ana", "ben-k"] for x in queue), queue
    assert not any("emoji" in x["text"] for x in queue)
    cy.run("review", "--team", "--accept-all")
    assert "make lint" in summary_of(cy)
    assert "team/accepted.md" in git(cy.memory, "show", "--name-only", "--format=", "projects/app~1") + \
        git(cy.memory, "show", "--name-only", "--format=", "projects/app")

    # a second person holding the preference makes it the team's: ben is told it, still not as his own words
    cy.session(app[cy], "t-cy-2", "I prefer commit messages without emoji.", day=24)
    cy.run("sync")
    cy.run("push", "acme")
    ben.run("pull", "acme")
    assert "2 people" in bullet(memory_of(ben), "emoji") and "ana prefers" not in bullet(memory_of(ben), "emoji")
    assert "emoji" in summary_of(ben)

    # a reader's forget of a teammate's learning is local: a revertible commit here, their ref untouched
    ana_ref = git(bare, "rev-parse", "people/ana/projects/app").strip()
    forgot = cy.json("forget", "Never use tabs", "--yes")
    assert [c["path"] for c in forgot["commits"]] == ["team/hidden.md"]
    assert "Never use tabs" not in memory_of(cy) and "Never use tabs" in memory_of(ben)
    cy.run("push", "acme")
    assert git(bare, "rev-parse", "people/ana/projects/app").strip() == ana_ref
    assert "hidden" not in git(bare, "ls-tree", "-r", "--name-only", "people/cy/projects/app")
    undo = cy.home / "undo"
    git(cy.memory, "worktree", "add", "-q", str(undo), "projects/app")
    git(undo, "-c", "user.name=cy", "-c", "user.email=cy@acme.dev", "revert", "--no-edit", forgot["commits"][0]["sha"])
    cy.run("consolidate", "--project", "app", "--force")
    assert "Never use tabs" in memory_of(cy)

    # an author's forget reaches everyone at the next pull
    ana.run("forget", "make lint", "--yes")
    ana.run("push", "acme")
    ben.run("pull", "acme")
    assert "2 people" not in bullet(memory_of(ben), "make lint") and "1 session" in bullet(memory_of(ben), "make lint")
    for p in people:
        fsck(p.memory)
    fsck(bare)


HOOK = """#!/bin/sh
# A host's branch protection: each person may push only their own refs.
case "$1" in
  refs/heads/people/ana/*|refs/heads/people/ben-k/*) exit 0 ;;
esac
echo "you may push only refs/heads/people/<you>/" >&2
exit 1
"""


def test_over_git_daemon_a_hosts_refusal_and_a_teammates_secret_are_one_line_each(team, git_daemon):
    ana, ben, cy, _ = team
    served = servers.bare_repo(git_daemon.root / "team.git")
    hook = served / "hooks" / "update"
    hook.write_text(HOOK)
    hook.chmod(0o755)
    url = git_daemon.url("team.git")
    app_a = make_git_project(ana.home / "dev" / "app", SSH)
    app_c = make_git_project(cy.home / "app", None)  # cy's checkout has no origin: another identity
    ana.session(app_a, "d-ana-1", "Always run `make lint` before pushing.")
    cy.session(app_c, "d-cy-1", "Never deploy on Fridays.")
    for p, name in ((ana, None), (cy, "mallory")):
        p.run("sync")
        p.run("team", "add", "acme", url, *(("--as", name) if name else ()))
        p.run("share", "app", "--team", "acme")
    assert "people/ana/projects/app" in ana.run("push", "acme").stdout

    # a person pushing as someone the host does not allow: the host's refusal in one line
    refused = cy.run("push", "acme", ok=False)
    assert refused.exit_code == 13 and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert "refused people/mallory/projects/app" in refused.stderr and "as 'mallory'" in refused.stderr
    assert git(served, "for-each-ref", "--format=%(refname)").split() == ["refs/heads/people/ana/projects/app"]
    assert "FAILED" in cy.run("team", "list").stdout

    # the same slug with no identity in common is another project: said, with the way to join them
    pulled = cy.json("pull", "acme")
    assert any("another project than your projects/app" in n and "memgit projects merge" in n
               for n in pulled["notices"]), pulled
    assert "make lint" not in memory_of(cy)

    # a teammate's ref that holds a secret is refused at fetch: nothing of it is taken in
    evil = cy.home / "evil"
    git(served.parent, "clone", "-q", str(served), str(evil))
    (evil / "PROJECT.md").write_text("---\nname: app\nremotes: [github.com/acme/app]\n---\n")
    (evil / "sessions").mkdir()
    (evil / "sessions" / "leak.md").write_text("token: ghp_" + "Zx9Qw3Er7Ty1Ui5Op2As6Df0Gh4Jk8Lm3Nb7V"[:36] + "\n")
    git(evil, "add", "-A")
    git(evil, "-c", "user.name=ben", "-c", "user.email=b@x", "commit", "-qm", "leak")
    git(evil, "push", "-q", str(served), "HEAD:refs/heads/people/ben-k/projects/app")
    before = git(ana.memory, "for-each-ref", "refs/memgit/")
    leak = ana.run("pull", "acme", ok=False)
    assert leak.exit_code == 6 and "github" in leak.stderr.lower() and "ghp_" not in leak.stderr
    assert git(ana.memory, "for-each-ref", "refs/memgit/") == before
    fsck(ana.memory)
