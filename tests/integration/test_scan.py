"""`memgit scan` finds a secret wherever git keeps it — a file that was later deleted, a commit
message, a file name, a branch name, an unreachable blob, a reflog, a cache — naming its kind and
place, never its value; and a history with a finding is not pushed."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from memgit.errors import SecretFound
from memgit.store.repo import MemoryRepo
from memgit.store import remote
from tests.conftest import git

# Built at test time from fragments: the test file itself holds no real-looking secret.
TOKEN = "ghp_" + "Zx9Qw3Er7Ty1Ui5Op2As6Df0Gh4Jk8Lm3Nb7V"[:36]
AWS = "AKIA" + "Q7ZP3XK9M2WV5RTB"


def person_commits(repo: Path, message: str, files: dict[str, str] | None = None, delete: tuple[str, ...] = ()) -> str:
    """A commit a person made with git itself, around memgit's gate."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "p", "GIT_AUTHOR_EMAIL": "p@p", "GIT_COMMITTER_NAME": "p",
           "GIT_COMMITTER_EMAIL": "p@p"}
    for path, text in (files or {}).items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
        git(repo, "add", path)
    for path in delete:
        git(repo, "rm", "-q", path)
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "--allow-empty", "-m", message], check=True, env=env)
    return git(repo, "rev-parse", "HEAD").strip()


@pytest.fixture
def planted(memory_path: Path, memgit_cli) -> dict[str, str]:
    assert memgit_cli("init").exit_code == 0
    repo = memory_path
    added = person_commits(repo, "notes: deploy", {"notes/deploy.md": f"Deploy with\ntoken: {TOKEN}\n"})
    person_commits(repo, "notes: remove the token", delete=("notes/deploy.md",))  # gone from the files, not from git
    message = person_commits(repo, f"notes: rotate {AWS}")  # the subject reaches the reflog too
    person_commits(repo, "notes: odd name", {f"notes/{AWS}.md": "nothing here\n"})
    git(repo, "branch", f"scratch/{TOKEN}")
    blob = subprocess.run(["git", "-C", str(repo), "hash-object", "-w", "--stdin"], input=f"key {AWS}\n",
                          capture_output=True, text=True, check=True).stdout.strip()
    return {"added": added, "message": message, "blob": blob}


def test_scan_names_every_place_a_secret_is_kept_and_never_its_value(planted, memory_path, memgit_cli):
    result = memgit_cli("scan", "--json")
    assert result.exit_code == 6
    data = json.loads(result.stdout)
    assert TOKEN not in result.output and AWS not in result.output
    places = {(f["kind"], f["where"], f["path"], f["commit"][:12]) for f in data["findings"]}
    assert ("github_token", "file", "notes/deploy.md", planted["added"][:12]) in places  # deleted later: still found
    assert ("aws_access_key", "commit message", "", planted["message"][:12]) in places
    assert any(f["kind"] == "aws_access_key" and f["where"] == "file name" and f["path"].startswith("notes/")
               for f in data["findings"])
    assert ("github_token", "branch name", "refs/heads/scratch/[REDACTED:github_token]", "") in places
    assert ("aws_access_key", "unreachable file", planted["blob"], "") in places
    assert any(f["where"] == "reflog" for f in data["findings"])
    text = memgit_cli("scan")
    assert text.exit_code == 6 and "github_token in file notes/deploy.md (commit" in text.stdout
    assert TOKEN not in text.output


def test_a_history_with_a_finding_is_not_pushed(planted, memory_path, tmp_path):
    bare = tmp_path / "backup.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    with MemoryRepo.open(memory_path) as repo, pytest.raises(SecretFound, match="refusing to push") as refused:
        remote.add_remote(repo, "origin", str(bare))
        remote.push(repo, "origin", {b: sha for b, sha in repo.branches().items() if remote.is_memgit_branch(b)})
    assert TOKEN not in refused.value.message and AWS not in refused.value.message
    assert "github_token in file notes/deploy.md" in refused.value.message  # found in what would be sent
    assert git(bare, "for-each-ref") == "" and "count: 0" in git(bare, "count-objects", "-v")


def test_a_clean_repository_scans_clean_and_may_be_pushed(memory_path, memgit_cli):
    assert memgit_cli("init").exit_code == 0
    result = memgit_cli("scan")
    assert result.exit_code == 0 and "no secret found" in result.stdout
    bare = memory_path.parent / "backup.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    with MemoryRepo.open(memory_path) as repo:
        remote.add_remote(repo, "origin", str(bare))
        assert remote.push(repo, "origin", repo.branches()).updated
