"""One repository, one branch (issue 17 item 8): sessions of one repository worked on at several paths, on
machines whose checkouts are not on this disk, end on one project branch whose PROJECT.md lists the remote
and every path; two repositories never do. And what the project is, kept in PROJECT.md's body.

Transcripts are the project's synthetic Claude Code files at cwds that do not exist here; the real case,
../shared/fixtures/scale (82 sessions of cc-backend at five paths), runs when ../shared is present.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memgit.core import about
from memgit.core.scopes import parse_project_md
from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from memgit.store.repo import MemoryRepo
from tests.conftest import SHARED, age, fsck, git
from tests.integration.test_hooks import additional_context, make_git_project, payload, run_hook

ANA_MAC, ANA_LINUX = "/Users/memgit-ana", "/home/memgit-ana"  # two machines of one person; neither exists here
REMOTE = "github.com/clustercockpit/cc-backend"
GO_TEST = "ok  \tgithub.com/ClusterCockpit/cc-backend/internal/repository\t0.82s\n" \
          "ok  \tgithub.com/ClusterCockpit/cc-lib/schema\t0.11s\n"
README = ("     1→# cc-backend\n     2→\n     3→[![Build](https://x/badge.svg)](https://x)\n     4→\n"
          "     5→cc-backend is the Go backend of ClusterCockpit, a job monitoring framework for HPC clusters.\n"
          "     6→\n     7→## Install\n")


def session(cwd: str, seed: str, *, evidence: str | None = "go-test", readme: bool = False) -> SessionWriter:
    """A session at `cwd` whose tool output names its repository in one of the ways agents show it."""
    s = SessionWriter(session_id(seed), cwd).user(f"Fix the failing repository tests ({seed}).")
    if readme:
        s.tool("Read", {"file_path": f"{cwd}/README.md"}, README)
    if evidence == "go-test":
        s.bash("go test ./internal/repository/...", GO_TEST)
    elif evidence == "push":
        s.bash("git push origin main", "To github.com:ClusterCockpit/cc-backend.git\n   1a2b3c4..5d6e7f8  main -> main")
    elif evidence == "go.mod":
        s.tool("Read", {"file_path": f"{cwd}/go.mod"}, "     1→module github.com/ClusterCockpit/cc-backend\n     2→\n")
    elif evidence == "dependency":
        s.bash("go test ./...", "ok  \tgithub.com/ClusterCockpit/cc-lib/schema\t0.11s\n")
        s.tool("Read", {"file_path": f"{cwd}/x.go"}, '\t"github.com/ClusterCockpit/cc-lib/ccLogger"\n' * 5)
    elif evidence is not None:
        s.bash("git push", f"To {evidence}\n")
    return s.assistant("Fixed: the query closes its rows now; the tests pass.")


def write(projects: Path, *sessions: SessionWriter) -> None:
    for i, s in enumerate(sessions):
        age(s.write(projects), 7200 - 60 * i)  # synced in the order given


def sync(memgit_cli) -> dict:
    result = memgit_cli("sync", "--all", "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def projects(memory: Path) -> dict[str, object]:
    """branch -> its PROJECT.md, read with the git CLI."""
    found = {}
    for branch in git(memory, "branch", "--format=%(refname:short)").split():
        if branch.startswith("projects/"):
            found[branch] = parse_project_md(git(memory, "show", f"{branch}:PROJECT.md"), branch)
    return found


def notes(memory: Path, branch: str) -> set[str]:
    """The sessions recorded on a branch (a note or a skip), by the first 8 characters of their id."""
    out = git(memory, "log", "--format=%(trailers:key=Memgit-Session,valueonly)", branch)
    return {line.strip().rsplit("/", 1)[1][:8] for line in out.splitlines() if line.strip()}


# ---- one repository, one branch -----------------------------------------------------------------


def test_one_repository_at_four_paths_on_two_machines_is_one_branch(claude_projects, memory_path, memgit_cli):
    write(claude_projects,
          session(f"{ANA_MAC}/prg/ClusterCockpit/cc-backend", "main-1"),
          session(f"{ANA_LINUX}/prg/ClusterCockpit/cc-backend", "linux-1", evidence=None),  # the /home twin
          session(f"{ANA_MAC}/prg/CC/cc-backend", "cc-1", evidence="go.mod"),
          session(f"{ANA_MAC}/tmp/cc-backend", "tmp-1", evidence="push"))
    sync(memgit_cli)
    (branch, project), = projects(memory_path).items()
    assert branch == "projects/cc-backend"
    assert project.remotes == (REMOTE,)
    assert set(project.paths) == {"~/prg/ClusterCockpit/cc-backend", "~/prg/CC/cc-backend", "~/tmp/cc-backend"}
    assert len(notes(memory_path, branch)) == 4
    log = git(memory_path, "log", "--format=%s%n%b", branch)
    assert f"names its repository {REMOTE}: go.mod or manifest (1)" in log  # each path's listing says why
    fsck(memory_path)


ORDERS = {
    # a folder's sessions without evidence first, each in a sync of its own: its path-only project later
    # learns the remote and is joined with the project another path created for it
    "no-evidence-first": [["a-plain"], ["b-named"], ["a-named"]],
    "evidence-first": [["b-named"], ["a-named"], ["a-plain"]],
    "one-run": [["a-plain", "b-named", "a-named"]],
    "one-run-reversed": [["a-named", "b-named", "a-plain"]],
}


@pytest.mark.parametrize("order", ORDERS, ids=list(ORDERS))
def test_the_result_does_not_depend_on_the_order_sessions_are_synced(claude_projects, memory_path, memgit_cli,
                                                                      order):
    a, b = f"{ANA_MAC}/prg/cc-backend", f"{ANA_LINUX}/tmp/cc-backend"
    made = {"a-plain": session(a, "a-plain", evidence=None), "b-named": session(b, "b-named", evidence="push"),
            "a-named": session(a, "a-named")}
    joined = []
    for i, batch in enumerate(ORDERS[order]):
        for seed in batch:
            age(made[seed].write(claude_projects), 7200 - 600 * i - 60 * batch.index(seed))
        joined += sync(memgit_cli).get("joined", [])
    found = projects(memory_path)
    assert list(found) == ["projects/cc-backend"]
    project = found["projects/cc-backend"]
    assert project.remotes == (REMOTE,) and set(project.paths) == {"~/prg/cc-backend", "~/tmp/cc-backend"}
    assert notes(memory_path, "projects/cc-backend") == {session_id(s)[:8] for s in made}
    if order == "no-evidence-first":
        assert joined == [{"into": "projects/cc-backend", "joined": "projects/cc-backend-2", "remote": REMOTE}]
    fsck(memory_path)


def test_a_join_is_a_merge_commit_that_keeps_both_histories(claude_projects, memory_path, memgit_cli):
    a, b = f"{ANA_MAC}/prg/cc-backend", f"{ANA_MAC}/tmp/cc-backend"
    write(claude_projects, session(a, "j-plain", evidence=None))
    sync(memgit_cli)
    write(claude_projects, session(b, "j-named", evidence="push"), session(a, "j-a-named"))
    result = memgit_cli("sync", "--all")
    assert "joined projects/cc-backend-2 into projects/cc-backend: one repository" in result.stdout
    merges = git(memory_path, "log", "--merges", "--format=%s", "projects/cc-backend").split("\n")
    assert "merge(cc-backend): join projects/cc-backend-2" in merges
    assert "projects/cc-backend-2" not in git(memory_path, "branch")
    fsck(memory_path)


@pytest.mark.parametrize("first", ["laid-out", "named"])
def test_a_clone_laid_out_as_owner_and_repository_is_that_repository_s_project(claude_projects, memory_path,
                                                                             memgit_cli, first):
    # no session at ~/src/ClusterCockpit/cc-backend names a remote; its path does, as ghq and GOPATH lay clones out
    made = {"laid-out": session(f"{ANA_LINUX}/src/ClusterCockpit/cc-backend", "lo-plain", evidence=None),
            "named": session(f"{ANA_MAC}/prg/cc-backend", "lo-named", evidence="push")}
    for i, seed in enumerate([first, *(s for s in made if s != first)]):
        age(made[seed].write(claude_projects), 7200 - 600 * i)
        sync(memgit_cli)  # each in a sync of its own: the order matters to nothing
    write(claude_projects, session(f"{ANA_MAC}/src/ana/cc-backend", "lo-fork", evidence=None))  # another owner
    sync(memgit_cli)
    found = projects(memory_path)
    assert sorted(found) == ["projects/cc-backend", "projects/cc-backend-2"]
    project = found["projects/cc-backend"]
    assert project.remotes == (REMOTE,)
    assert set(project.paths) == {"~/prg/cc-backend", "~/src/ClusterCockpit/cc-backend"}
    assert notes(memory_path, "projects/cc-backend") == {session_id("lo-plain")[:8], session_id("lo-named")[:8]}
    assert found["projects/cc-backend-2"].paths == ("~/src/ana/cc-backend",)
    assert "is laid out as the repository github.com/clustercockpit/cc-backend" in git(
        memory_path, "log", "--format=%b", "projects/cc-backend")
    fsck(memory_path)


# ---- what is refused ---------------------------------------------------------------------------


def test_a_dependency_never_names_the_project(claude_projects, memory_path, memgit_cli):
    write(claude_projects, session(f"{ANA_MAC}/prg/cc-backend", "dep-1", evidence="dependency"),
          session(f"{ANA_MAC}/tmp/cc-backend", "dep-2", evidence="dependency"))
    sync(memgit_cli)
    found = projects(memory_path)
    assert len(found) == 2 and all(p.remotes == () for p in found.values())


def test_two_repositories_of_one_name_stay_apart(claude_projects, memory_path, memgit_cli):
    write(claude_projects,
          session(f"{ANA_MAC}/work/cc-backend", "fork-1", evidence="git@github.com:ana/cc-backend.git"),
          session(f"{ANA_MAC}/prg/cc-backend", "upstream-1", evidence="push"),
          session(f"{ANA_MAC}/prg/cc-backend", "fork-2", evidence="git@github.com:ana/cc-backend.git"))
    sync(memgit_cli)
    found = projects(memory_path)
    assert sorted(p.remotes for p in found.values()) == [("github.com/ana/cc-backend",), (REMOTE,)]
    # the second session at ~/prg/cc-backend names the fork, but that path is known as upstream's: it stays
    by_path = {path: b for b, p in found.items() for path in p.paths}
    assert notes(memory_path, by_path["~/prg/cc-backend"]) == {session_id("upstream-1")[:8], session_id("fork-2")[:8]}


def test_two_competing_remotes_in_one_session_name_nothing(claude_projects, memory_path, memgit_cli):
    s = session(f"{ANA_MAC}/prg/cc-backend", "both", evidence="push")
    s.bash("git push fork", "To github.com:ana/cc-backend.git\n")
    write(claude_projects, s)
    sync(memgit_cli)
    (project,) = projects(memory_path).values()
    assert project.remotes == ()


def test_a_live_checkout_keeps_its_own_remote(tmp_path, claude_projects, memory_path, memgit_cli):
    checkout = make_git_project(tmp_path / "dev" / "cc-backend", "git@github.com:ana/cc-backend.git")
    write(claude_projects, session(str(checkout), "live-1"))  # its go test lines name upstream
    sync(memgit_cli)
    (project,) = projects(memory_path).values()
    assert project.remotes == ("github.com/ana/cc-backend",)


# ---- the session-start hook finds the project from any of its paths ------------------------------


@pytest.mark.parametrize("cwd", [f"{ANA_LINUX}/prg/CC/cc-backend", f"{ANA_MAC}/tmp/cc-backend/web/frontend",
                                 "/Users/someone-else/prg/CC/cc-backend"])
def test_session_start_in_a_directory_that_does_not_exist_finds_the_project(claude_projects, memory_path,
                                                                            memgit_cli, cwd):
    write(claude_projects, session(f"{ANA_MAC}/prg/CC/cc-backend", "hook-1"),
          session(f"{ANA_LINUX}/tmp/cc-backend", "hook-2", evidence="push"))
    sync(memgit_cli)
    assert not Path(cwd).exists()
    text = additional_context(run_hook("session-start", payload("session-start-startup.json", cwd=cwd))[0])
    assert "branch `projects/cc-backend`" in text


def test_session_start_elsewhere_gets_no_project(claude_projects, memory_path, memgit_cli):
    write(claude_projects, session(f"{ANA_MAC}/prg/CC/cc-backend", "hook-3"))
    sync(memgit_cli)
    done = run_hook("session-start", payload("session-start-startup.json", cwd=f"{ANA_MAC}/prg/other"))[0]
    # nothing holds across projects yet and the folder is in no project: nothing to tell, or no project's notes
    assert done.returncode == 0 and (not done.stdout.strip() or "projects/cc-backend" not in additional_context(done))


# ---- what the project is --------------------------------------------------------------------------

ABOUT = "cc-backend is the Go backend of ClusterCockpit, a job monitoring framework for HPC clusters."


def test_what_the_sessions_read_of_the_readme_fills_project_md(claude_projects, memory_path, memgit_cli):
    write(claude_projects, session(f"{ANA_MAC}/prg/cc-backend", "about-1", readme=True))
    sync(memgit_cli)
    (project,) = projects(memory_path).values()
    assert project.body.startswith("<!-- memgit:about from=session file=README.md ")
    assert about.about(project) == ABOUT
    assert "project(cc-backend): describe from README.md" in git(memory_path, "log", "--format=%s", project.branch)


def test_a_person_s_project_text_is_never_overwritten(claude_projects, memory_path, memgit_cli):
    write(claude_projects, session(f"{ANA_MAC}/prg/cc-backend", "mine-1", readme=True))
    sync(memgit_cli)
    (project,) = projects(memory_path).values()
    mine = project.body.replace("Go backend", "Go and Svelte backend")
    with MemoryRepo.open(memory_path) as repo:
        text = git(memory_path, "show", f"{project.branch}:PROJECT.md").replace(project.body, mine)
        repo.commit(project.branch, {"PROJECT.md": text.encode()}, "edit(cc-backend): my words\n")
    write(claude_projects, session(f"{ANA_MAC}/prg/cc-backend", "mine-2", readme=True))
    sync(memgit_cli)
    (after,) = projects(memory_path).values()
    assert after.body == mine and about.about(after) == ABOUT.replace("Go backend", "Go and Svelte backend")


def test_a_live_checkout_s_readme_says_what_the_project_is(tmp_path, claude_projects, memory_path, memgit_cli):
    checkout = make_git_project(tmp_path / "dev" / "pinion", "git@github.com:acme/pinion.git")
    (checkout / "README.md").write_text("# Pinion\n\n[![CI](b.svg)](ci)\n\n"
                                        "Pinion keeps Typesense collections in sync with Postgres tables.\n")
    write(claude_projects, session(str(checkout), "pinion-1", evidence=None, readme=True))
    sync(memgit_cli)
    (project,) = projects(memory_path).values()
    assert about.about(project) == "Pinion keeps Typesense collections in sync with Postgres tables."
    assert "from=checkout" in project.body


# ---- the real case: cc-backend's 82 sessions at five paths ---------------------------------------

SCALE = SHARED / "fixtures" / "scale" / "cc-backend" / "claude"


@pytest.mark.skipif(not SCALE.is_dir(), reason="../shared/fixtures/scale is absent (real transcripts live beside "
                                               "the project, not in it)")
def test_cc_backend_at_five_paths_is_one_branch(claude_projects, memory_path, memgit_cli):
    shutil.rmtree(claude_projects)
    shutil.copytree(SCALE, claude_projects)
    for path in claude_projects.rglob("*.jsonl"):
        age(path, 3 * 3600)
    summary = sync(memgit_cli)
    assert summary["read"] == 82 and summary["failed"] == 0
    found = projects(memory_path)
    assert list(found) == ["projects/cc-backend"]
    project = found["projects/cc-backend"]
    assert project.remotes == (REMOTE,)
    assert set(project.paths) == {"~/prg/ClusterCockpit/cc-backend", "~/prg/CC/cc-backend", "~/tmp/cc-backend",
                                  "~/prg/cc-backend"}  # /home/jan/prg/ClusterCockpit/cc-backend is the first, from ~
    line = about.about(project)
    assert line and "ClusterCockpit" in line and len(line) <= about.LIMIT
    fsck(memory_path)
