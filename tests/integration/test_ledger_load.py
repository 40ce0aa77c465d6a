"""ledger.load: a ledger extended with the commits made since the last load (in the same process)
equals one read from scratch, whatever the commits were: more ranges, a revert, a new branch."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memgit.store import ledger_cache
from memgit.core.ledger import Ledger, format_message
from memgit.store.repo import MemoryRepo
from tests.conftest import git


def extract_message(session: str, span: str) -> str:
    return format_message("extract", "p", f"Work on {session}", body="What was done.", trailers=[
        ("Memgit-Session", f"claude-code/{session}"), ("Memgit-Source", f"-home-u/{session}.jsonl"),
        ("Memgit-Range", span), ("Memgit-Outcome", "success"), ("Memgit-Note", f"sessions/2026/11/{session}.md"),
    ])


def commit(repo: Path, branch: str, message: str, when: int, fork_from: str = "") -> str:
    """A real commit made by git on `branch` at the time `when` (seconds since the epoch)."""
    env = {**os.environ, "GIT_AUTHOR_DATE": f"@{when} +0000", "GIT_COMMITTER_DATE": f"@{when} +0000",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    if branch not in git(repo, "branch", "--format=%(refname:short)").split():
        # memgit forks a project from main's first commit; a fork from main's head shares its commits
        git(repo, "branch", branch, fork_from or git(repo, "rev-list", "--max-parents=0", "main").strip())
    tree = git(repo, "rev-parse", f"{branch}^{{tree}}").strip()
    sha = subprocess.run(["git", "-C", str(repo), "commit-tree", tree, "-p", branch, "-F", "-"], input=message,
                         capture_output=True, text=True, check=True, env=env).stdout.strip()
    git(repo, "update-ref", f"refs/heads/{branch}", sha)
    return sha


def load(repo: Path) -> Ledger:
    with MemoryRepo.open(repo) as memory:
        return ledger_cache.load(memory, repo / ".git" / "memgit")


def from_scratch(repo: Path) -> Ledger:
    ledger_cache._LAST.clear()
    ledger_cache._READ.clear()
    (repo / ".git" / "memgit" / "ledger.pickle").unlink(missing_ok=True)
    return load(repo)


def same(a: Ledger, b: Ledger) -> None:
    assert a.entries == b.entries
    assert a.reverts == b.reverts
    assert a.by_session == b.by_session
    assert {k: sorted(v) for k, v in a.undone_by.items()} == {k: sorted(v) for k, v in b.undone_by.items()}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "memory"
    MemoryRepo.init(path, {"README.md": b"memory\n"}, author="t <t@t>").close()
    ledger_cache._LAST.clear()
    return path


@pytest.mark.parametrize("later,fork_from,extends", [(1000, "", True), (0, "", False), (1000, "main", False)],
                         ids=["later commits", "in the same second", "a commit reached from two branches"])
def test_a_ledger_extended_since_the_last_load_equals_one_read_from_scratch(repo, monkeypatch, later, fork_from,
                                                                              extends):
    extended = []
    original = Ledger.extended
    monkeypatch.setattr(Ledger, "extended", lambda self, *a: extended.append(original(self, *a)) or extended[-1])
    t = 1_700_000_000
    commit(repo, "main", extract_message("s1", "0-100"), t)
    s2 = commit(repo, "projects/p", extract_message("s2", "0-50"), t + 1)
    first = load(repo)
    assert first.processed_end("claude-code/s1") == 100 and not first.is_reverted(s2)

    commit(repo, "main", extract_message("s1", "100-200"), t + 1 + later)
    commit(repo, "projects/p", f'Revert "extract(p): Work on s2"\n\nThis reverts commit {s2}.\n', t + 2 + later)
    commit(repo, "projects/q", extract_message("s3", "0-10"), t + 3 + later, fork_from)
    grown = load(repo)
    assert grown.processed_end("claude-code/s1") == 200 and grown.is_reverted(s2)
    assert grown.processed_end("claude-code/s3") == 10
    assert first.processed_end("claude-code/s1") == 100  # the earlier ledger is left as it was
    assert [e is not None for e in extended] == [extends]  # extended, or rebuilt when it could not be
    same(grown, from_scratch(repo))


def test_the_cache_file_is_read_again_when_another_process_rewrote_it(repo):
    t = 1_700_000_000
    commit(repo, "main", extract_message("s1", "0-100"), t)
    load(repo)
    commit(repo, "main", extract_message("s1", "100-300"), t + 10)
    # another process (a hook's sync) loads and rewrites the cache; this one must not trust its memo
    subprocess.run([sys.executable, "-c", "import sys; from pathlib import Path; from memgit.store import ledger_cache; "
                    "from memgit.store.repo import MemoryRepo; r = Path(sys.argv[1]); "
                    "m = MemoryRepo.open(r); ledger_cache.load(m, r / '.git' / 'memgit'); m.close()", str(repo)],
                   check=True, cwd=Path(__file__).resolve().parents[2])
    assert load(repo).processed_end("claude-code/s1") == 300
