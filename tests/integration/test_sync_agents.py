"""`memgit sync` over Codex and Gemini CLI history beside Claude Code's: every fixture session is
accounted for exactly once, on its project's branch, and one project used from two agents has one branch.

The fixtures are read in place: the agents' homes hold symlinks to them, named as each agent names
its files (one Codex rollout is compressed at test time: a `.zst` holds a copy, not a link).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from memgit.core.scopes import portable_path
from memgit.sources.claude_code.synthetic import SessionWriter
from tests import faults
from tests.conftest import FIXTURES

CODEX_FIXTURES, GEMINI_FIXTURES = FIXTURES / "codex", FIXTURES / "gemini"
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

pytestmark = pytest.mark.skipif(
    not (CODEX_FIXTURES.is_dir() and GEMINI_FIXTURES.is_dir()),
    reason="../shared/fixtures/transcripts/{codex,gemini} are absent (real transcripts live beside the project)",
)


def first_record(path: Path) -> dict:
    with open(path, encoding="utf-8") as f:
        try:
            return json.loads(f.readline())
        except ValueError:
            return {}


def lay_out(home: Path, *, compress: Path | None = None) -> dict[str, tuple[str, str | None]]:
    """Link every fixture into `home` as Codex and Gemini CLI lay their files out.

    Returns {ledger session key: (fixture name, the cwd the session recorded or None)}.
    """
    expected = {}
    for n, path in enumerate(sorted(CODEX_FIXTURES.rglob("*.jsonl"))):
        head = first_record(path)
        meta = head.get("payload", {}) if head.get("type") == "session_meta" else {}
        found = UUID.findall(path.name)
        sid = found[-1] if found else meta.get("id") or f"00000000-0000-4000-8000-{n:012d}"
        folder = home / ".codex" / "sessions" / "2026" / "01" / f"{n + 1:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        name = f"rollout-2026-01-{n + 1:02d}T10-00-00-{sid}.jsonl"
        if path == compress:
            import zstandard

            (folder / (name + ".zst")).write_bytes(zstandard.ZstdCompressor().compress(path.read_bytes()))
        else:
            (folder / name).symlink_to(path)
        expected[f"codex/{sid}"] = (path.name, meta.get("cwd"))
    for path in sorted(GEMINI_FIXTURES.rglob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        chats = home / ".gemini" / "tmp" / doc["projectHash"] / "chats"
        chats.mkdir(parents=True, exist_ok=True)
        (chats / f"session-2026-01-16T11-01-{doc['sessionId'][:8]}.json").symlink_to(path)
        expected[f"gemini-cli/{doc['sessionId']}"] = (path.name, None)
    return expected


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def ledger_commits(repo: Path) -> list[dict]:
    """Every extract/skip/fail commit: its branch, kind and trailers."""
    out = []
    for branch in git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads").split():
        # every parent: a project joined into its repository's branch brings its records through the merge
        log = git(repo, "log", branch, "--format=%H%x1f%s%x1f%(trailers:only,unfold)%x1e")
        for record in filter(str.strip, log.split("\x1e")):
            sha, subject, trailers = record.strip("\n").split("\x1f")
            kind = subject.split("(", 1)[0]
            if kind in ("extract", "skip", "fail"):
                fields = dict(line.split(": ", 1) for line in trailers.splitlines() if ": " in line)
                out.append({"sha": sha, "branch": branch, "kind": kind, **fields})
    unique = {c["sha"]: c for c in out}  # a commit reached from two branches counts once
    return list(unique.values())


@pytest.fixture(scope="module")
def synced(tmp_path_factory):
    home = tmp_path_factory.mktemp("agents-home")
    compress = next(p for p in sorted(CODEX_FIXTURES.rglob("rollout-*.jsonl")))
    expected = lay_out(home, compress=compress)
    # The same project, used from Claude Code: a Claude session in the cwd of a Codex fixture.
    shared_cwd = next(cwd for _, cwd in expected.values() if cwd and cwd.startswith("/"))
    w = SessionWriter(session_id="5e55a0e1-0000-4000-8000-00000000c0de", cwd=shared_cwd)
    w.user("Always run the linter with `ruff check .` before committing in this repo.")
    w.assistant("Noted: I ran `ruff check .` and it passed, so the change is ready to commit.")
    w.user("thanks")
    w.write(home / ".claude" / "projects")
    env = faults.memgit_env(home, MEMGIT_MIN_IDLE_MINUTES="0", MEMGIT_MAX_AGE_DAYS="0")
    first = faults.memgit(home, "sync", "--all", "--json", env=env)
    assert first.returncode == 0 and "Traceback" not in first.stderr, first.stderr
    again = faults.memgit(home, "sync", "--json", env=env)
    assert again.returncode == 0, again.stderr
    repo = home / ".local" / "share" / "memgit"
    return {"home": home, "repo": repo, "expected": expected, "first": json.loads(first.stdout),
            "again": json.loads(again.stdout), "claude": f"claude-code/{w.session_id}", "shared_cwd": shared_cwd}


def test_every_codex_and_gemini_session_is_recorded_exactly_once(synced):
    commits = ledger_commits(synced["repo"])
    by_session: dict[str, list[dict]] = {}
    for c in commits:
        by_session.setdefault(c["Memgit-Session"], []).append(c)
    for key, (fixture, _) in synced["expected"].items():
        assert len(by_session.get(key, [])) == 1, (fixture, key, sorted(by_session))
    extracted = [k for k in synced["expected"] if by_session[k][0]["kind"] == "extract"]
    assert len(extracted) >= 6, extracted  # the real sessions say something worth keeping
    assert synced["again"]["read"] == 0 and synced["again"]["commits"] == 0  # nothing read twice (the .zst included)
    git(synced["repo"], "fsck", "--strict")


def test_each_session_lands_on_the_branch_of_its_cwd(synced):
    repo = synced["repo"]
    commits = {c["Memgit-Session"]: c for c in ledger_commits(repo)}
    for key, (fixture, cwd) in synced["expected"].items():
        if not cwd or not cwd.startswith("/"):
            continue
        branch = commits[key]["branch"]
        assert branch.startswith("projects/"), (fixture, branch)
        project_md = git(repo, "show", f"{branch}:PROJECT.md")
        assert portable_path(cwd) in project_md or "remotes:\n- " in project_md, (fixture, project_md)


def test_one_project_used_from_claude_code_and_codex_has_one_branch(synced):
    commits = ledger_commits(synced["repo"])
    claude = next(c for c in commits if c["Memgit-Session"] == synced["claude"])
    codex = [c for c in commits if c["Memgit-Session"].startswith("codex/")
             and synced["expected"][c["Memgit-Session"]][1] == synced["shared_cwd"]]
    assert codex and {c["branch"] for c in codex} == {claude["branch"]}


def test_status_lists_every_agent(synced):
    done = faults.memgit(synced["home"], "status", "--json", env=faults.memgit_env(synced["home"]))
    data = json.loads(done.stdout)
    assert set(data["sources"]) == {"claude-code", "codex", "gemini-cli"}
    agents = {p["agent"] for p in data["projects"]}
    assert agents == {"claude-code", "codex", "gemini-cli"}
    assert data["totals"]["pending"] == 0 and data["totals"]["on_disk"] == len(synced["expected"]) + 1


def test_no_account_name_is_stored(synced):
    """Home folders are written from `~`: the account name in a recorded cwd never reaches git."""
    names = {m.group(1) for _, cwd in synced["expected"].values() if cwd
             for m in [re.match(r"/(?:Users|home)/([^/]+)/", cwd)] if m}
    assert names, "the fixtures' cwds are under a home folder"
    blobs = subprocess.run(["git", "-C", str(synced["repo"]), "cat-file", "--batch-all-objects", "--batch"],
                           capture_output=True, check=True).stdout
    for name in names:
        assert f"/{name}/".encode() not in blobs, name


def test_projects_lists_each_branch_with_its_identity_and_agents(synced):
    env = faults.memgit_env(synced["home"])
    data = json.loads(faults.memgit(synced["home"], "projects", "--json", env=env).stdout)
    commits = {c["Memgit-Session"]: c for c in ledger_commits(synced["repo"])}
    shared = commits[synced["claude"]]["branch"]
    row = next(r for r in data["projects"] if r["branch"] == shared)
    assert row["agents"] == ["claude-code", "codex"] and row["sessions"] >= 2 and row["last_sync"]
    assert portable_path(synced["shared_cwd"]) in row["paths"] or row["remotes"]
    assert {r["branch"] for r in data["projects"]} == {c["branch"] for c in commits.values()} - {"main"}
    text = faults.memgit(synced["home"], "projects", env=env).stdout
    assert shared in text and "claude-code,codex" in text
