"""`memgit purge` (issue 18): a secret that got into the history — a note, a commit message, a
trailer, planted by a person's own git commit around memgit's gate — leaves every object, every
branch and the caches; the ledger, every other byte, the authors and the dates stay."""

from __future__ import annotations

import json
import os
import secrets
import string
import subprocess
from pathlib import Path

import pytest

from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests.conftest import age, fsck, git, ledger_commits


def fresh_token() -> str:
    """A GitHub token memgit's rules catch, made at test time (the test file holds none)."""
    return "ghp_" + "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(36))


def hand_commit(repo: Path, message: str, files: dict[str, str]) -> str:
    """A commit a person made with git itself, around memgit's gate."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "Pat", "GIT_AUTHOR_EMAIL": "pat@example.org",
           "GIT_COMMITTER_NAME": "Pat", "GIT_COMMITTER_EMAIL": "pat@example.org",
           "GIT_AUTHOR_DATE": "2026-11-01T10:00:00Z", "GIT_COMMITTER_DATE": "2026-11-01T10:00:05Z"}
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
        git(repo, "add", path)
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "-m", message], check=True, env=env)
    return git(repo, "rev-parse", "HEAD").strip()


def session(projects: Path, seed: str, lesson: str, cwd: str = "/home/u/dev/app") -> None:
    writer = (SessionWriter(session_id(seed), cwd)
              .user(f"The build is broken, fix it. {lesson}")
              .bash("make test", "collected 3 items\n\n3 passed in 0.2s")
              .user(f"Thanks. Remember: {lesson}"))
    age(writer.write(projects))


def every_object(repo: Path) -> str:
    return subprocess.run(["git", "-C", str(repo), "cat-file", "--batch-all-objects", "--batch"],
                          capture_output=True, check=True).stdout.decode("utf-8", "replace")


def notes(repo: Path) -> dict[str, str]:
    """Every file of every branch, as committed."""
    out = {}
    for branch in git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads").split():
        for path in git(repo, "ls-tree", "-r", "--name-only", branch).splitlines():
            out[f"{branch}:{path}"] = git(repo, "show", f"{branch}:{path}")
    return out


def ledger(repo: Path) -> list[tuple[str, str, str]]:
    return sorted((r["kind"], r["session"], r["range"]) for r in ledger_commits(repo))


@pytest.fixture
def planted(claude_projects, memory_path, memgit_cli):
    """A memory with two sessions, and between them a person's commit holding a token three times."""
    token = fresh_token()
    session(claude_projects, "s-1", "Always run the linter with `make lint` before pushing.")
    assert memgit_cli("sync").exit_code == 0
    hand = hand_commit(memory_path, f"notes: deploy with {token}\n\nWhy: the staging deploy\nDeploy-Token: {token}\n",
                       {"notes/deploy.md": f"# Deploy\n\nUse the token {token} for staging.\nKeep it short.\n"})
    session(claude_projects, "s-2", "The staging deploy runs `make deploy ENV=staging`.", cwd="/home/u/dev/other")
    synced = memgit_cli("sync", "--json")
    assert synced.exit_code == 0 and token not in synced.stdout
    return token, hand, json.loads(synced.stdout)


def test_purge_takes_a_secret_out_of_every_object_and_keeps_the_rest(planted, memory_path, memgit_cli):
    token, hand, synced = planted
    before_notes, before_ledger = notes(memory_path), ledger(memory_path)
    heads = git(memory_path, "for-each-ref")
    scan = json.loads(memgit_cli("scan", "--json").stdout)
    assert {f["where"] for f in scan["findings"]} >= {"file", "commit message"}
    # the sync after the person's commit named each finding with the line that removes it
    told = {f["purge"] for f in synced["secrets"]}
    assert told == {f"memgit purge --finding {f['id']}" for f in scan["findings"] if f["commit"] == hand}
    assert {f["where"] for f in synced["secrets"]} == {"file", "commit message"}
    assert all(any(line in w for w in synced["warnings"]) for line in told)

    refused = memgit_cli("purge", "--json")  # no --yes: nothing changes
    assert refused.exit_code == 2 and len(refused.stdout.strip().splitlines()) == 1
    assert git(memory_path, "for-each-ref") == heads

    result = memgit_cli("purge", *" ".join(sorted(told)).replace("memgit purge ", "").split(), "--yes", "--json")
    assert result.exit_code == 0, result.output
    assert token not in result.output
    report = json.loads(result.stdout)
    assert report["done"] and set(report["purge_commits"]) == {"main"}

    fsck(memory_path)
    assert memgit_cli("scan").exit_code == 0
    assert token not in every_object(memory_path)
    assert ledger(memory_path) == before_ledger  # every session still recorded as read
    after = notes(memory_path)
    assert after == {k: v.replace(token, "[REDACTED:github_token]") for k, v in before_notes.items()}
    assert "[REDACTED:github_token]" in after["main:notes/deploy.md"]
    assert (memory_path / "notes" / "deploy.md").read_text() == after["main:notes/deploy.md"]  # the worktree follows
    assert git(memory_path, "status", "--porcelain") == ""

    # the person's commit: its author, dates and message kept but for the value
    rewritten = git(memory_path, "log", "main", "--format=%H%x00%an <%ae> %aI %cI%x00%B", "--grep", "notes: deploy")
    sha, who, message = rewritten.split("\x00")
    assert sha != hand and who == "Pat <pat@example.org> 2026-11-01T10:00:00+00:00 2026-11-01T10:00:05+00:00"
    assert message.strip() == ("notes: deploy with [REDACTED:github_token]\n\nWhy: the staging deploy\n"
                               "Deploy-Token: [REDACTED:github_token]")
    purge_commit = git(memory_path, "log", "-1", "main", "--format=%s%n%(trailers:key=Memgit-Purged,valueonly)")
    assert purge_commit.startswith("purge(main): ") and "github_token 3" in purge_commit

    again = json.loads(memgit_cli("sync", "--json").stdout)
    assert again["read"] == 0 and "secrets" not in again  # no session is read again; nothing left to tell


def test_a_purge_travels_to_the_remote_and_to_the_other_machine(tmp_path, monkeypatch, memgit_cli):
    """The value got past memgit's rules (a pattern added later finds it), reached the remote and the
    other machine; one purge takes it out of all three, and nobody's notes are lost."""
    from tests.integration.test_machines import Machine
    from tests.servers import bare_repo

    a, b = Machine(tmp_path / "a", monkeypatch, memgit_cli), Machine(tmp_path / "b", monkeypatch, memgit_cli)
    bare = bare_repo(tmp_path / "memory.git")
    value = "zebra-" + secrets.token_hex(16)
    session(a.projects, "a-1", "Always run the linter with `make lint` before pushing.")
    a.run("sync")
    hand_commit(a.memory, f"notes: staging id {value}\n\nStaging-Id: {value}\n",
                {"notes/deploy.md": f"# Deploy\n\nThe staging id is {value} for now.\n"})
    a.run("remote", "add", "origin", str(bare))
    a.run("push")
    b.run("clone", str(bare))
    b.run("remember", "--global", "Deploys happen on Fridays only.")  # B's own, not pushed
    for m in (a, b):  # the rule that finds it came later
        (m.home / ".config" / "memgit").mkdir(parents=True, exist_ok=True)
        (m.home / ".config" / "memgit" / "config.toml").write_text('[redact]\nextra_patterns = ["zebra-[0-9a-f]{32}"]\n')
    assert b.run("scan", ok=False).exit_code == 6

    refused = a.run("push", "--force", ok=False)
    assert refused.exit_code == 13 and "nothing to force" in refused.stderr
    a.run("purge", "--yes")
    assert "memgit push --force" in a.run("push", ok=False).stderr
    early = a.run("pull", ok=False)  # the remote's old history would bring the value back
    assert early.exit_code == 6 and "Send the purge first: memgit push --force" in early.stderr

    old_head = git(bare, "rev-parse", "main").strip()
    git(bare, "update-ref", "refs/heads/main", "main~1")  # another machine moved the remote meanwhile
    moved = a.run("push", "--force", ok=False)
    assert moved.exit_code == 13 and "moved since the purge" in moved.stderr
    assert git(bare, "rev-parse", "main").strip() == git(bare, "rev-parse", f"{old_head}~1").strip()
    git(bare, "update-ref", "refs/heads/main", old_head)
    forced = a.json("push", "--force")
    assert forced["forced"] == ["main"]
    reachable = subprocess.run(f"git -C {bare} rev-list --objects --all | cut -d' ' -f1 | git -C {bare} cat-file --batch",
                               shell=True, capture_output=True, check=True).stdout
    assert value.encode() not in reachable

    before = notes(b.memory)
    pulled = b.run("pull").stdout
    assert "main: rebuilt on origin's history, which `memgit purge` rewrote" in pulled
    assert "1 commit(s) of this machine replayed on top" in pulled and "NOT joined" not in pulled
    after = notes(b.memory)
    assert any("Deploys happen on Fridays only." in text for text in after.values())  # B's note kept
    assert after["main:notes/deploy.md"] == before["main:notes/deploy.md"].replace(value, "[REDACTED:custom]")
    for m in (a, b):
        fsck(m.memory)
        assert m.run("scan", ok=False).exit_code == 0, m.run("scan", ok=False).stdout
        assert value not in every_object(m.memory)
    assert ledger(b.memory) == ledger(a.memory)
    assert b.json("sync")["read"] == 0
    b.run("push")  # B's note goes on top of the purged history: a plain fast-forward
    a.run("pull")
    assert notes(a.memory) == notes(b.memory)


def test_a_refused_edit_kept_as_a_draft_is_told_at_sync_and_purged(memory_path, memgit_cli):
    from memgit import config
    from memgit.errors import SecretFound
    from memgit.verbs.remember import commit_edit

    assert memgit_cli("init").exit_code == 0
    token = fresh_token()
    cfg = config.load()
    with pytest.raises(SecretFound):  # `memgit edit` refuses it, and keeps the person's words in a draft
        commit_edit(cfg, "main", "notes/deploy.md", git(memory_path, "rev-parse", "main").strip(), f"token {token}\n")
    synced = json.loads(memgit_cli("sync", "--json").stdout)
    [found] = synced["secrets"]
    assert found["where"] == "cache" and found["path"].startswith(".git/memgit/drafts/")
    result = memgit_cli(*found["purge"].split()[1:], "--yes")
    assert result.exit_code == 0, result.output
    assert memgit_cli("scan").exit_code == 0
    assert "secrets" not in json.loads(memgit_cli("sync", "--json").stdout)


def test_purge_path_drops_a_note_from_every_commit(memory_path, memgit_cli):
    assert memgit_cli("init").exit_code == 0
    token = fresh_token()
    hand_commit(memory_path, "notes: deploy", {"notes/deploy.md": f"token {token}\n", "notes/keep.md": "kept\n"})
    hand_commit(memory_path, "notes: more", {"notes/deploy.md": f"token {token}\nmore\n"})
    assert memgit_cli("purge", "--finding", "0000000000", "--yes").exit_code == 12  # not an id scan printed

    result = memgit_cli("purge", "--path", "notes/deploy.md", "--yes", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["branches"]["main"] == {"commits": 2, "places": {"file": 1}}  # one note, two versions
    assert git(memory_path, "log", "--all", "--format=%H", "--", "notes/deploy.md") == ""
    assert git(memory_path, "show", "main:notes/keep.md") == "kept\n"
    assert not (memory_path / "notes" / "deploy.md").exists()
    fsck(memory_path)
    assert memgit_cli("scan").exit_code == 0 and token not in every_object(memory_path)
