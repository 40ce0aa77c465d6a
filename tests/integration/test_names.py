"""Names from disk and from the agent never break git or carry a secret into it: a transcript file
name that is not UTF-8, that looks like a secret, or that has doubled or trailing spaces; a cwd
with control characters; a secret in a folder name, a cwd or a git branch. Each session is recorded
once, the next sync reads nothing again, `git fsck --strict` stays clean."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests.conftest import age, fsck, git

TOKEN = "ghp_" + "Zx9Qw3Er7Ty1Ui5Op2As6Df0Gh4Jk8Lm3Nb7V"[:36]  # built here, not a real-looking literal


def session(seed: str, cwd: str = "/home/demo/dev/vault", git_branch: str = "main") -> SessionWriter:
    w = SessionWriter(session_id(seed), cwd, git_branch=git_branch)
    w.user("Always run the linter before committing, because CI rejects lint errors.")
    w.bash("uv run pytest -x tests/", "12 passed in 0.8s")
    return w


def write_as(w: SessionWriter, projects: Path, name: bytes) -> Path:
    """Write the session, then give its file the (raw bytes) name under test."""
    path = w.write(projects)
    target = os.path.join(os.fsencode(path.parent), name)
    os.rename(os.fsencode(path), target)
    age(Path(os.fsdecode(target)))
    return Path(os.fsdecode(target))


def everything_written(memory: Path) -> str:
    """Every object, ref name and file under .git (caches and logs included), as text."""
    objects = subprocess.run(["git", "-C", str(memory), "cat-file", "--batch-all-objects", "--batch"],
                             capture_output=True, check=True).stdout.decode("utf-8", "replace")
    files = [p for p in (memory / ".git").rglob("*") if p.is_file()]
    names = "\n".join(str(p) for p in files)
    return objects + names + "".join(p.read_bytes().decode("utf-8", "replace") for p in files)


def sessions_recorded(memory: Path) -> list[str]:
    log = git(memory, "log", "--all", "--format=%(trailers:key=Memgit-Session,valueonly)")
    return [line for line in log.split() if line]


def sync_twice(memgit_cli) -> dict:
    first = memgit_cli("sync", "--json")
    assert first.exit_code == 0, first.output
    assert "Traceback" not in first.output
    second = memgit_cli("sync", "--json")
    assert second.exit_code == 0, second.output
    return {"first": json.loads(first.stdout), "second": json.loads(second.stdout)}


def test_file_names_that_are_not_plain_are_recorded_once_under_a_stable_stand_in(claude_projects, memory_path,
                                                                                     memgit_cli):
    write_as(session("utf8"), claude_projects, b"\xff\xfe-not-utf8.jsonl")  # r02
    write_as(session("secret"), claude_projects, TOKEN.encode() + b".jsonl")  # r03
    write_as(session("spaces"), claude_projects, b"two  spaces and a trailing one .jsonl")  # r04
    write_as(session("plain"), claude_projects, session_id("plain").encode() + b".jsonl")
    runs = sync_twice(memgit_cli)
    assert runs["first"]["read"] == 4 and runs["first"]["failed"] == 0
    assert runs["second"]["read"] == 0  # nothing read again: each was recorded under the name it is found by
    recorded = sessions_recorded(memory_path)
    assert len(recorded) == 4 and f"claude-code/{session_id('plain')}" in recorded
    assert sum(s.startswith("claude-code/h-") for s in recorded) == 3
    assert TOKEN not in everything_written(memory_path) and TOKEN not in runs["first"].__repr__()
    fsck(memory_path)


def test_control_characters_in_a_cwd_never_reach_a_commit(claude_projects, memory_path, memgit_cli):
    w = session("nul", cwd="/home/demo/dev/we\x00ird\x1b[31m")  # r05
    age(w.write(claude_projects))
    runs = sync_twice(memgit_cli)
    assert runs["first"]["extracted"] == 1
    fsck(memory_path)
    commits = subprocess.run(["git", "-C", str(memory_path), "log", "--all", "--format=%B"],
                             capture_output=True, check=True).stdout
    assert b"\x00" not in commits and b"\x1b" not in commits


def test_a_secret_in_a_folder_name_a_cwd_or_a_git_branch_stays_out_of_git(claude_projects, memory_path, memgit_cli):
    age(session("cwd", cwd=f"/home/demo/dev/app/{TOKEN}/svc").write(claude_projects))
    age(session("branch", git_branch=f"feature/{TOKEN}").write(claude_projects))
    runs = sync_twice(memgit_cli)
    assert runs["first"]["extracted"] == 2 and runs["second"]["read"] == 0
    written = everything_written(memory_path)
    assert TOKEN not in written
    assert TOKEN not in git(memory_path, "for-each-ref", "--format=%(refname)")
    assert "[REDACTED:github_token]" in written  # the note still says where, without the value
    fsck(memory_path)


def test_a_secret_in_a_project_folder_name_stays_out_of_git(claude_projects, memory_path, memgit_cli):
    # Claude Code names the folder after the cwd, every other character a dash: the token follows a '-'
    w = session("folder", cwd="/home/demo/dev/vault")
    path = w.write(claude_projects)
    folder = claude_projects / f"-home-demo-{TOKEN}"
    os.rename(path.parent, folder)
    age(folder / path.name)
    runs = sync_twice(memgit_cli)
    assert runs["first"]["extracted"] == 1 and runs["second"]["read"] == 0
    assert TOKEN not in everything_written(memory_path)
    status = memgit_cli("status", "--json")
    assert status.exit_code == 0 and TOKEN not in status.output
