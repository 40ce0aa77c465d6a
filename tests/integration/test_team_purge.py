"""`memgit purge` of a shared project (issues 18 and 22): a value that reached the team before a rule
caught it leaves the team's history at the next push, and later pushes go on as before; a teammate's
pull takes the rewritten history."""

from __future__ import annotations

import secrets
import subprocess

from tests import servers
from tests.conftest import fsck, git
from tests.integration.test_hooks import make_git_project
from tests.integration.test_purge import hand_commit
from tests.integration.test_team import SSH, Person, configure, memory_of, pair


def reachable(bare) -> bytes:
    """Every object the remote's refs reach, their contents."""
    return subprocess.run(f"git -C {bare} rev-list --objects --all | cut -d' ' -f1 | git -C {bare} cat-file --batch",
                          shell=True, capture_output=True, check=True).stdout


def test_a_purged_shared_project_is_pushed_again_without_the_value_and_later_pushes_work(tmp_path, monkeypatch,
                                                                                          memgit_cli):
    ana, ben, bare, app = pair(tmp_path, monkeypatch, memgit_cli)
    value = "zebra-" + secrets.token_hex(16)
    ana.session(app[ana], "p-ana-1", "Always run `make lint` before pushing.", day=10)
    ben.session(app[ben], "p-ben-1", "Never deploy on Fridays.", day=11)
    for p in (ana, ben):
        p.run("sync")
        p.run("team", "add", "acme", str(bare))
        p.run("share", "app", "--team", "acme")
    ana.run("push", "acme")

    # a note of ana's holds a value no rule knew yet: it reaches the team and ben
    work = ana.home / "work"
    git(ana.memory, "worktree", "add", "-q", str(work), "projects/app")
    hand_commit(work, "notes: staging id\n", {"sessions/2026/11/2026-11-12-staging-aaaa0001.md":
        "---\nsession: claude-code/aaaa0001-0000-4000-8000-000000000001\nagent: claude-code\nproject: app\n"
        "started: '2026-11-12T10:00:00Z'\n---\n# Staging\n\nDeployed to staging.\n\n## Learnings\n"
        f"- [fact] The staging id is {value} for now.\n"})
    git(ana.memory, "worktree", "remove", "--force", str(work))
    ana.run("push", "acme")
    ben.run("pull", "acme")
    assert value.encode() in reachable(bare)

    # the rule comes; ana purges; her next push takes the value off the team's history
    configure(ana, '[redact]\nextra_patterns = ["zebra-[0-9a-f]{32}"]\n')
    ana.run("purge", "--yes")
    assert ana.run("scan", ok=False).exit_code == 0
    pushed = ana.json("push", "acme")
    assert list(pushed["updated"]) == ["people/ana/projects/app"], pushed
    assert value.encode() not in reachable(bare)
    shared = git(bare, "show", "people/ana/projects/app:sessions/2026/11/2026-11-12-staging-aaaa0001.md")
    assert "[REDACTED:custom]" in shared

    # later pushes are fast-forwards again
    ana.session(app[ana], "p-ana-2", "Never commit `.env.local`.", day=13)
    ana.run("sync")
    before = git(bare, "rev-parse", "people/ana/projects/app").strip()
    ana.run("push", "acme")
    after = git(bare, "rev-parse", "people/ana/projects/app").strip()
    assert git(bare, "rev-parse", f"{after}^").strip() == before
    assert "up to date" in ana.run("push", "acme").stdout

    # ben takes the rewritten history at his next pull: the value is gone from his memory's notes
    configure(ben, '[redact]\nextra_patterns = ["zebra-[0-9a-f]{32}"]\n')
    ben.run("pull", "acme")
    assert value not in memory_of(ben) and ".env.local" in memory_of(ben)
    assert value not in git(ben.memory, "show", "refs/memgit/team/acme/ana/projects/app:"
                                        "sessions/2026/11/2026-11-12-staging-aaaa0001.md")
    for p in (ana, ben):
        fsck(p.memory)
    fsck(bare)


def test_a_purge_of_what_never_left_the_machine_lets_the_push_go_on_from_the_last_share(tmp_path, monkeypatch,
                                                                                          memgit_cli):
    """The value is in a commit message (a share never carries one), so the team got the note but not the
    value; the purge rewrites the head the last share was made from, and the push goes on from it."""
    ana = Person(tmp_path / "ana", "ana@acme.dev", monkeypatch, memgit_cli)
    bare = servers.bare_repo(tmp_path / "team.git")
    app = make_git_project(ana.home / "dev" / "app", SSH)
    value = "zebra-" + secrets.token_hex(16)
    ana.session(app, "q-ana-1", "Always run `make lint` before pushing.", day=10)
    ana.run("sync")
    ana.run("team", "add", "acme", str(bare))
    ana.run("share", "app", "--team", "acme")
    work = ana.home / "work"  # a person's own git commit, around memgit's gate
    git(ana.memory, "worktree", "add", "-q", str(work), "projects/app")
    hand_commit(work, f"notes: staging id {value}\n", {"notes/staging.md": "# Staging\n\nThe staging host is up.\n"})
    git(ana.memory, "worktree", "remove", "--force", str(work))
    ana.run("push", "acme")
    first = git(bare, "rev-parse", "people/ana/projects/app").strip()

    configure(ana, '[redact]\nextra_patterns = ["zebra-[0-9a-f]{32}"]\n')
    ana.run("purge", "--yes")
    ana.session(app, "q-ana-2", "Never commit `.env.local`.", day=12)
    ana.run("sync")
    pushed = ana.json("push", "acme")  # on the last share: a fast-forward
    assert list(pushed["updated"]) == ["people/ana/projects/app"], pushed
    assert git(bare, "rev-parse", "people/ana/projects/app^").strip() == first
    assert value.encode() not in reachable(bare)
    fsck(ana.memory)
    fsck(bare)
