"""One memory on two machines (issue 11): two HOMEs sync different sessions of the same projects and
meet through one remote — a bare repository on disk, `git daemon` on localhost, git's smart HTTP.

Each machine is a HOME of its own (its ~/.claude, its memory repository, its config); the CLI runs
in-process with the environment pointed at one HOME, then the other. Afterwards both hold every
session, nothing was extracted twice, the derived files are the same, and git finds nothing wrong.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests.conftest import age, fsck, git, ledger_commits, point_home
from tests import servers
from tests.integration.test_hooks import make_git_project
from tests.integration.test_hooks import world  # noqa: F401  (fixture)
from tests.servers import git_daemon, http_server  # noqa: F401  (fixtures)

APP_REMOTE = "git@github.com:acme/app.git"  # the same project checked out at different paths on each machine


class Machine:
    """One HOME: its agents' transcripts, its projects and its memory repository."""

    def __init__(self, home: Path, monkeypatch, cli):
        self.home, self.mp, self.cli = home, monkeypatch, cli
        self.memory = home / ".local" / "share" / "memgit"
        self.projects = home / ".claude" / "projects"
        self.projects.mkdir(parents=True, exist_ok=True)

    def run(self, *args: str, ok: bool = True):
        point_home(self.mp, self.home)
        result = self.cli(*args)
        if ok:
            assert result.exit_code == 0, f"memgit {' '.join(args)}: {result.stdout}{result.stderr}"
        return result

    def json(self, *args: str) -> dict:
        return json.loads(self.run(*args, "--json").stdout)

    def session(self, cwd: Path, seed: str, lesson: str) -> str:
        """A finished session in cwd that teaches `lesson`; returns its id."""
        writer = (SessionWriter(session_id(seed), str(cwd))
                  .user(f"The build is broken, fix it. {lesson}")
                  .bash("make test", "collected 3 items\n\n3 passed in 0.2s")
                  .user(f"Thanks. Remember: {lesson}"))
        age(writer.write(self.projects))
        return writer.session_id

    def heads(self) -> dict[str, str]:
        out = git(self.memory, "for-each-ref", "--format=%(refname:short) %(objectname)", "refs/heads")
        return dict(line.split() for line in out.splitlines())

    def derived(self) -> dict[str, str]:
        """MEMORY.md, memory_summary.md and skills/ of every branch, as committed."""
        files = {}
        for branch in self.heads():
            for path in git(self.memory, "ls-tree", "-r", "--name-only", branch).splitlines():
                if path in ("MEMORY.md", "memory_summary.md") or path.startswith("skills/"):
                    files[f"{branch}:{path}"] = git(self.memory, "show", f"{branch}:{path}")
        return files


@pytest.fixture
def machines(tmp_path, monkeypatch, memgit_cli):
    a = Machine(tmp_path / "a", monkeypatch, memgit_cli)
    b = Machine(tmp_path / "b", monkeypatch, memgit_cli)
    return a, b


@pytest.fixture(params=["bare", "daemon", "http"])
def remote(request, tmp_path) -> tuple[str, Path]:
    """An empty remote repository reached over one transport, every server started by the test:
    (the URL a person adds, the bare repository it serves)."""
    if request.param == "bare":
        bare = servers.bare_repo(tmp_path / "memory.git")
        return str(bare), bare
    server = request.getfixturevalue("git_daemon" if request.param == "daemon" else "http_server")
    return server.url("memory.git"), servers.bare_repo(server.root / "memory.git")


def extracted(memory: Path) -> list[str]:
    return sorted(r["session"] for r in ledger_commits(memory) if r["kind"] == "extract")


def test_two_machines_meet_through_one_remote(machines, remote):
    a, b = machines
    remote_url, served = remote
    app_a = make_git_project(a.home / "dev" / "app", APP_REMOTE)
    app_b = make_git_project(b.home / "work" / "checkouts" / "app", APP_REMOTE)  # another path, the same project
    tool_a = make_git_project(a.home / "dev" / "tool", "https://example.org/me/tool.git")
    a.session(app_a, "a-1", "Always run the linter with `make lint` before pushing.")
    a.session(tool_a, "a-2", "The tool's config lives in `~/.toolrc`.")
    b.session(app_b, "b-1", "Always deploy to staging with `make deploy ENV=staging`.")

    a.run("sync")
    a.run("remote", "add", "origin", remote_url)
    a.run("push")
    b.run("sync")  # B made its memory before it knew of A's: unrelated histories
    b.run("remote", "add", "origin", remote_url)
    pulled = b.json("pull")
    assert not pulled["conflicts"]
    b.run("push")
    a.run("pull")

    # both hold every session, each extracted once, on one branch per project
    assert extracted(a.memory) == extracted(b.memory) and len(extracted(a.memory)) == 3
    assert a.heads() == b.heads()
    assert set(a.heads()) == {"main", "projects/app", "projects/tool"}
    project = git(a.memory, "show", "projects/app:PROJECT.md")
    assert str(app_a) in project and str(app_b) in project  # both paths, one identity
    assert a.derived() == b.derived()
    summary = git(a.memory, "show", "projects/app:memory_summary.md")
    assert "2 sessions" in summary  # regenerated from both machines' notes
    memory = git(a.memory, "show", "projects/app:MEMORY.md")
    assert "make lint" in memory and "ENV=staging" in memory, memory

    # then they diverge again: each syncs a new session, one joins the other's, the other fast-forwards
    a.session(app_a, "a-3", "Use `pytest -n 4` to run the suite in parallel.")
    b.session(app_b, "b-2", "Never commit `.env.local`.")
    a.run("sync")
    b.run("sync")
    a.run("push")
    b.run("pull")
    b.run("push")
    a.run("pull")
    assert a.heads() == b.heads() and a.derived() == b.derived()
    assert len(extracted(a.memory)) == 5
    assert "Merge" not in git(a.memory, "log", "--format=%s", "projects/app")  # memgit's own merge subjects
    assert "merge(app)" in git(a.memory, "log", "--format=%s", "projects/app")

    # zero re-extraction: nothing new on either machine
    for m in machines:
        before = ledger_commits(m.memory)
        assert m.json("sync")["read"] == 0
        assert ledger_commits(m.memory) == before
        fsck(m.memory)
        assert git(m.memory, "status", "--porcelain") == ""  # the worktree follows main
    fsck(served)


def test_clone_restores_without_extracting_again(machines, tmp_path):
    a, b = machines
    bare = tmp_path / "memory.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    app = make_git_project(a.home / "dev" / "app", APP_REMOTE)
    ids = [a.session(app, f"c-{n}", f"Always run `make check{n}` before a release.") for n in range(3)]
    a.run("sync")
    a.run("remote", "add", "origin", str(bare))
    a.run("push")

    # a new machine with the same transcripts (a restored home): clone, then sync reads nothing again
    for sid in ids:
        src = next(a.projects.rglob(f"{sid}.jsonl"))
        dst = b.projects / src.parent.name / src.name
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(src.read_bytes())
        age(dst)
    make_git_project(b.home / "dev" / "app", APP_REMOTE)
    cloned = b.json("clone", str(bare))
    assert set(cloned["branches"]) == {"main", "projects/app"}
    assert b.heads() == a.heads()
    assert git(b.memory, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    assert (b.memory / "memory_summary.md").is_file() and git(b.memory, "status", "--porcelain") == ""
    assert git(b.memory, "remote", "get-url", "origin").strip() == str(bare)
    before = ledger_commits(b.memory)
    synced = b.json("sync")
    assert synced["read"] == 0 and ledger_commits(b.memory) == before  # 0 new extract commits
    context = b.run("context", "--cwd", str(b.home / "dev" / "app")).stdout
    assert "projects/app" in context and "make check" in context, context  # the restored memory is told
    fsck(b.memory)

    # a clone onto an existing repository is refused with the way to join instead
    again = b.run("clone", str(bare), ok=False)
    assert again.exit_code != 0 and "memgit pull" in again.stderr


def configure(machine: Machine, text: str) -> None:
    cfile = machine.home / ".config" / "memgit" / "config.toml"
    cfile.parent.mkdir(parents=True, exist_ok=True)
    cfile.write_text(text)


def test_auto_push_and_pull_around_sync_keep_machines_current(machines, tmp_path):
    a, b = machines
    bare = servers.bare_repo(tmp_path / "memory.git")
    for m in machines:
        configure(m, "[repo]\nauto_push = true\nauto_pull = true\n")
    app_a = make_git_project(a.home / "dev" / "app", APP_REMOTE)
    app_b = make_git_project(b.home / "src" / "app", APP_REMOTE)
    a.session(app_a, "auto-a", "Always run `make fmt` before committing.")
    a.run("init")
    a.run("remote", "add", "origin", str(bare))
    assert not a.json("sync").get("warnings")
    assert "projects/app" in git(bare, "branch", "--list")  # pushed by the sync

    b.run("clone", str(bare))
    b.session(app_b, "auto-b", "Always tag releases with `make tag`.")
    b.json("sync")  # pulls (nothing new), reads its session, pushes
    a.json("sync")  # pulls B's session
    assert a.heads() == b.heads() == {ref: sha for ref, sha in
                                      (line.split() for line in git(bare, "for-each-ref", "--format=%(refname:short) %(objectname)", "refs/heads").splitlines())}
    assert len(extracted(a.memory)) == 2
    status = a.json("status")["remotes"]
    assert status[0]["name"] == "origin" and status[0]["unpushed"] == [] and status[0]["push"]["ok"]


def test_an_unreachable_remote_never_fails_a_sync_and_status_says_why(machines, tmp_path):
    a, _ = machines
    configure(a, "[repo]\nauto_push = true\nauto_pull = true\n")
    app = make_git_project(a.home / "dev" / "app", APP_REMOTE)
    a.session(app, "offline", "Always run `make fmt` before committing.")
    a.run("init")
    a.run("remote", "add", "origin", f"git://127.0.0.1:{servers.closed_port()}/memory.git")
    synced = a.json("sync")  # exit 0: the sync did its work
    assert synced["extracted"] == 1
    assert any("auto pull from origin failed" in w for w in synced["warnings"])
    assert any("auto push to origin failed" in w for w in synced["warnings"])
    text = a.run("status").stdout
    assert "last push FAILED" in text and "memgit push to try again" in text and "branch(es) not pushed" in text
    remote = a.json("status")["remotes"][0]
    assert not remote["push"]["ok"] and "127.0.0.1" in remote["push"]["message"]
    fsck(a.memory)


def test_push_pull_and_remote_errors_are_one_line_with_what_to_do(machines, tmp_path):
    a, _ = machines
    a.run("init")
    nothing = a.run("push", ok=False)
    assert nothing.exit_code == 12 and "memgit remote add origin URL" in nothing.stderr
    assert "no remote" in a.run("remote").stdout
    bare = servers.bare_repo(tmp_path / "memory.git")
    a.run("remote", "add", "origin", str(bare))
    assert a.run("remote", "add", "origin", str(bare), ok=False).exit_code == 15
    secret = a.run("remote", "add", "web", "https://me:hunter2-password@example.org/m.git", ok=False)
    assert secret.exit_code == 13 and "hunter2" not in secret.stderr and "credential" in secret.stderr
    listed = a.json("remote")["remotes"]
    assert [r["name"] for r in listed] == ["origin"]
    assert a.run("push").exit_code == 0 and "main" in git(bare, "branch", "--list")
    assert "up to date" in a.run("push").stdout
    assert a.run("pull").exit_code == 0
    a.run("remote", "remove", "origin")
    assert a.json("remote")["remotes"] == [] and "origin" not in git(a.memory, "remote")
    gone = a.run("clone", str(tmp_path / "nowhere.git"), "--path", str(tmp_path / "x"), ok=False)
    assert gone.exit_code == 13 and not (tmp_path / "x").exists()


def test_on_the_hook_path_the_push_runs_in_the_background_sync(world, claude_projects, memory_path, memgit_cli,
                                                                 tmp_path):
    from tests.integration.test_hooks import payload, project_session, run_hook, wait_for_syncs

    bare = servers.bare_repo(tmp_path / "memory.git")
    assert memgit_cli("remote", "add", "origin", str(bare)).exit_code == 0
    cfile = Path(os.environ["XDG_CONFIG_HOME"]) / "memgit" / "config.toml"
    cfile.parent.mkdir(parents=True, exist_ok=True)
    cfile.write_text("[repo]\nauto_push = true\n")
    ended = project_session(world, "hook-pushed")
    path = ended.write(claude_projects)
    stdin = payload("session-end.json", session_id=ended.session_id, transcript_path=str(path), cwd=str(world))
    done, elapsed = run_hook("session-end", stdin, cwd=world)
    assert done.returncode == 0 and done.stdout == b"" and elapsed < 1.5  # the session is not held up
    wait_for_syncs(memory_path / ".git" / "memgit")
    assert git(bare, "rev-parse", "projects/pinion").strip() == git(memory_path, "rev-parse", "projects/pinion").strip()
    assert ended.session_id in git(bare, "log", "--format=%(trailers:key=Memgit-Session,valueonly)", "projects/pinion")
    fsck(bare)


def test_a_note_edited_differently_on_both_machines_is_reported_never_committed(machines, tmp_path):
    a, b = machines
    bare = servers.bare_repo(tmp_path / "memory.git")
    app_a = make_git_project(a.home / "dev" / "app", APP_REMOTE)
    a.session(app_a, "both-edit", "Always run `make fmt` before committing.")
    a.run("sync")
    a.run("remote", "add", "origin", str(bare))
    a.run("push")
    b.run("clone", str(bare))
    [note] = [p for p in git(a.memory, "ls-tree", "-r", "--name-only", "projects/app").splitlines()
              if p.startswith("sessions/")]
    for m, words in ((a, "edited on the laptop"), (b, "edited on the desktop")):  # a person's own edit, with git
        git(m.memory, "switch", "-q", "projects/app")
        (m.memory / note).write_text((m.memory / note).read_text() + f"\n{words}\n")
        git(m.memory, "-c", "user.name=me", "-c", "user.email=me@example.org", "commit", "-qam", words)
        git(m.memory, "switch", "-q", "main")
    a.run("remember", "--global", "Answer in English.")
    a.run("push")
    b_app = b.heads()["projects/app"]

    pulled = b.run("pull", ok=False)
    assert pulled.exit_code == 7
    assert f"projects/app: NOT joined, edited differently on both machines: {note}" in pulled.stdout
    assert b.heads()["projects/app"] == b_app  # left as it was: nothing half-joined
    joined = subprocess.run(["git", "-C", str(b.memory), "merge-base", "--is-ancestor", a.heads()["main"], "main"])
    assert joined.returncode == 0  # the other branches joined (main then consolidated here, over b's projects)
    assert "edited on the desktop" in git(b.memory, "show", f"projects/app:{note}")
    assert "<<<<<<<" not in git(b.memory, "log", "-p", "--all")
    report = json.loads(b.run("pull", "--json", ok=False).stdout)
    assert not report["ok"] and report["conflicts"][0]["paths"] == [note]
    assert "FAILED" in b.run("status").stdout
    fsck(b.memory)

    # the way out the message gives: make the note agree on one machine, push, pull again
    git(b.memory, "switch", "-q", "projects/app")
    git(b.memory, "reset", "-q", "--hard", "origin/projects/app")
    git(b.memory, "switch", "-q", "main")
    assert b.run("pull").exit_code == 0
    b.run("push")
    a.run("pull")
    assert b.heads() == a.heads() and "edited on the laptop" in git(b.memory, "show", f"projects/app:{note}")


def test_a_machine_whose_clock_runs_a_day_ahead_still_joins_and_pushes(machines, tmp_path, monkeypatch):
    import time

    a, b = machines
    bare = servers.bare_repo(tmp_path / "memory.git")
    app_a = make_git_project(a.home / "dev" / "app", APP_REMOTE)
    app_b = make_git_project(b.home / "src" / "app", APP_REMOTE)
    a.session(app_a, "ahead", "Always run `make fmt` before committing.")
    b.session(app_b, "behind", "Always tag releases with `make tag`.")
    real = time.time
    with monkeypatch.context() as clock:
        clock.setattr(time, "time", lambda: real() + 86400)  # a's commits are dated tomorrow
        a.run("sync")
        a.run("remote", "add", "origin", str(bare))
        a.run("push")
    b.run("sync")
    b.run("remote", "add", "origin", str(bare))
    b.run("pull")  # b's merge is dated today, its second parent tomorrow
    b.run("push")  # a fast-forward for the remote, whatever the dates say
    a.run("pull")
    assert a.heads() == b.heads() and len(extracted(a.memory)) == 2
    fsck(bare)
