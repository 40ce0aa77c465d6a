"""Hermetic tests: user state in tmp, git and memgit environment scrubbed, no network."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.fake_llm import fake_llm  # noqa: F401  (the fake OpenAI-compatible server, for every test module)

ROOT = Path(__file__).resolve().parent.parent  # the project checkout
SHARED = ROOT.parent / "shared"
FIXTURES = SHARED / "fixtures" / "transcripts"
CLAUDE_FIXTURES = FIXTURES / "claude"

needs_shared = pytest.mark.skipif(
    not CLAUDE_FIXTURES.is_dir(),
    reason="../shared/fixtures/transcripts is absent (real transcripts live beside the project, not in it)",
)


def point_home(mp: pytest.MonkeyPatch, home: Path, *, data: str = ".local/share", config: str = ".config") -> None:
    """Make `home` the user's home for memgit and git: their variables scrubbed, HOME and XDG_* set."""
    for key in list(os.environ):
        if key.startswith(("GIT_", "MEMGIT_", "CLAUDE_", "CODEX_", "GEMINI_", "XDG_")):
            mp.delenv(key, raising=False)
    mp.setenv("HOME", str(home))
    mp.setenv("XDG_DATA_HOME", str(home / data))
    mp.setenv("XDG_CONFIG_HOME", str(home / config))
    mp.setenv("GIT_CONFIG_NOSYSTEM", "1")


@pytest.fixture(autouse=True)
def hermetic_env(tmp_path_factory, monkeypatch):
    """Point HOME, XDG_* at a temp dir and scrub GIT_*, MEMGIT_*, CLAUDE_* variables."""
    home = tmp_path_factory.mktemp("home")
    point_home(monkeypatch, home)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    # Search is BM25 alone whether or not the `semantic` extra is installed here; its tests turn it on.
    monkeypatch.setenv("MEMGIT_SEMANTIC", "0")
    monkeypatch.setenv("LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS", "True")
    return home


def git(repo: Path, *args: str, check: bool = True) -> str:
    """Run the real git CLI on `repo` and return its stdout."""
    result = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=False
    )
    if check and result.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {result.stderr}")
    return result.stdout


def unpack(repo: Path) -> None:
    """Turn the repository's packs into one loose file per object, as memgit wrote them before it
    wrote packs: what the tests that tear or delete one object's file need."""
    pack_dir = repo / ".git" / "objects" / "pack"
    for pack in sorted(pack_dir.glob("*.pack")):
        data = pack.read_bytes()
        for part in pack_dir.glob(pack.stem + ".*"):
            part.unlink()
        subprocess.run(["git", "-C", str(repo), "unpack-objects", "-q"], input=data, check=True, capture_output=True)


def fsck(repo: Path) -> None:
    """Assert `git fsck --strict` finds nothing wrong."""
    result = subprocess.run(
        ["git", "-C", str(repo), "fsck", "--strict", "--full"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "error" not in result.stderr.lower(), result.stderr


@pytest.fixture
def claude_projects(hermetic_env) -> Path:
    """~/.claude/projects of the temporary HOME."""
    path = hermetic_env / ".claude" / "projects"
    path.mkdir(parents=True)
    return path


@pytest.fixture
def memory_path(hermetic_env) -> Path:
    """Where memgit keeps its repository by default, under the temporary HOME."""
    return hermetic_env / ".local" / "share" / "memgit"


@pytest.fixture
def memgit_cli():
    """Run a memgit command in-process; returns click's Result (stdout and stderr apart)."""
    from click.testing import CliRunner

    from memgit.cli.commands import cli

    def run(*args: str, input: str | None = None):
        return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)

    return run


def age(path: Path, seconds: float = 7200) -> None:
    """Make a transcript look idle: modified `seconds` ago."""
    import time

    then = time.time() - seconds
    os.utime(path, (then, then))


def ledger_commits(repo: Path) -> list[dict]:
    """Every extract/skip/fail commit on every branch, read with the git CLI."""
    fmt = "%H%x1f%s%x1f%(trailers:key=Memgit-Session,valueonly)%x1f%(trailers:key=Memgit-Range,valueonly)%x1f%(trailers:key=Memgit-Reason,valueonly)%x1e"
    out = git(repo, "log", "--all", f"--format={fmt}")
    rows = []
    for chunk in out.split("\x1e"):
        if not chunk.strip():
            continue
        sha, subject, session, span, reason = (part.strip() for part in chunk.strip("\n").split("\x1f"))
        kind = subject.split("(", 1)[0]
        if kind in ("extract", "skip", "fail"):
            rows.append({"sha": sha, "kind": kind, "subject": subject, "session": session,
                         "range": span, "reason": reason})
    return rows


def all_refs(repo: Path) -> str:
    return git(repo, "for-each-ref", "--format=%(refname) %(objectname)")
