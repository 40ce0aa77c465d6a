"""A learning a later session contradicted never comes back (issue 17, item 6): neither from MEMORY.md's
`## Superseded` section nor from the session notes that still hold it, through the prompt hook or
`memgit search`; and it comes back when consolidation no longer marks it. MEMORY.md is written with
consolidation's own bullet format (memgit.consolidate.heuristic.memory_md.superseded_bullet).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memgit.config import load as load_config
from memgit.consolidate.heuristic.graph import Cluster, Occurrence
from memgit.consolidate.heuristic.memory_md import bullet, superseded_bullet
from memgit.core import scopes
from memgit.store import search_index, search_reader
from memgit.resources import repo_template_files
from memgit.store.repo import DEFAULT_AUTHOR, MemoryRepo
from memgit.verbs.search import refresh_index, search
from tests.integration.test_hooks import run_hook

OLD = "Build the web frontend with `npm run build` before packaging the release tarball."
NEW = "Build the web frontend with `pnpm run build` before packaging the release tarball; npm is gone."
A = "sessions/2026/02/2026-02-01-frontend-aaaa1111.md"
B = "sessions/2026/03/2026-03-01-frontend-bbbb2222.md"
C = "sessions/2026/02/2026-02-09-release-cccc3333.md"  # says the old words too; MEMORY.md does not link it
PROMPT = "Packaging the release tarball: how do I build the web frontend, npm run build?"
TOPICS = ["alembic migrations", "celery beat schedule", "sentry release tags", "pydantic validators",
          "nginx gzip headers", "jinja template filters", "redis lock timeouts", "s3 presigned uploads",
          "stripe webhook signatures", "mypy strict optional", "eslint import order", "vite proxy config"]


def note(session: str, day: str, learnings: list[str]) -> bytes:
    items = "".join(f"- {item}\n" for item in learnings)
    return (f"---\nsession: claude-code/{session}-0000-4000-8000-000000000001\nagent: claude-code\nproject: pinion\n"
            f"started: {day}T10:00:00Z\n---\n# Frontend build\n\nThe user asked: get the release out. In the end: "
            f"{learnings[0][len('[decision] '):]}\n\n## Learnings\n{items}").encode()


def memory_md(*, superseded: bool) -> bytes:
    old = Cluster("decision", [Occurrence("decision", OLD, A, "claude-code/aaaa1111", "2026-02-01")])
    new = Cluster("decision", [Occurrence("decision", NEW, B, "claude-code/bbbb2222", "2026-03-01")])
    if superseded:
        old.superseded_by = new
        return (f"# Memory: pinion\n\n## Decisions\n\n{bullet(new)}\n\n## Superseded\n\nLearnings a later session "
                f"contradicted; what holds now follows each.\n\n{superseded_bullet(old)}\n").encode()
    return f"# Memory: pinion\n\n## Decisions\n\n{bullet(new)}\n{bullet(old)}\n".encode()


@pytest.fixture
def pinion(tmp_path, memory_path):
    """A project whose newer session replaced npm by pnpm, consolidated; the index and context cache built."""
    checkout = tmp_path / "dev" / "pinion"
    checkout.mkdir(parents=True)
    project = scopes.Project(branch="projects/pinion", name="pinion", remotes=(), paths=(str(checkout),))
    with MemoryRepo.init(memory_path, repo_template_files(), author=DEFAULT_AUTHOR) as repo:
        repo.commit(project.branch, {"PROJECT.md": scopes.render_project_md(project).encode()},
                    "init(pinion): project pinion\n", create_from=repo.root())
        # A memory that has seen a few weeks of other work (a memory of one subject only holds nothing rare).
        others = {f"sessions/2026/01/2026-01-{i + 1:02d}-other-{i:08x}.md":
                  note(f"{i:08x}", f"2026-01-{i + 1:02d}", [f"[decision] The {topic} live in {topic.split()[0]}."])
                  for i, topic in enumerate(TOPICS)}
        repo.commit(project.branch, {**others,
            A: note("aaaa1111", "2026-02-01", [f"[decision] {OLD}", "[fact] The release tarball lands in `dist/`."]),
            B: note("bbbb2222", "2026-03-01", [f"[decision] {NEW}"]),
            C: note("cccc3333", "2026-02-09", ["[fact] Release notes live in `CHANGES.md`.", f"[decision] {OLD}"]),
        }, "extract(pinion): sessions\n")
        repo.commit(project.branch, {"MEMORY.md": memory_md(superseded=True)}, "consolidate(pinion): memory\n")
        refresh_index(repo, load_config())
    start = json.dumps({"session_id": "5e55104e-0000-4000-8000-000000000003", "cwd": str(checkout),
                        "hook_event_name": "SessionStart", "source": "startup"}).encode()
    assert run_hook("session-start", start, cwd=checkout)[0].returncode == 0  # the context cache
    return checkout


def asked(cwd: Path) -> str:
    stdin = json.dumps({"session_id": "5e55104e-0000-4000-8000-000000000004", "cwd": str(cwd), "prompt": PROMPT,
                        "hook_event_name": "UserPromptSubmit", "transcript_path": "/nonexistent"}).encode()
    done, _ = run_hook("user-prompt-submit", stdin, cwd=cwd)
    assert done.returncode == 0 and done.stderr == b""
    return json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"] if done.stdout else ""


def test_a_superseded_learning_never_comes_back_from_the_prompt_hook(pinion):
    text = asked(pinion)
    assert "pnpm run build" in text
    assert "`npm run build`" not in text and "~~" not in text


def test_nor_from_search_neither_its_notes_nor_memory_md(pinion):
    hits = search(load_config(), "npm run build release tarball frontend", limit=50, cwd=str(pinion))
    assert hits and all("`npm run build`" not in h.text and "~~" not in h.text for h in hits)
    assert {h.path for h in hits} >= {B}
    assert search(load_config(), '"superseded by"', limit=50) == []


def test_it_comes_back_when_consolidation_no_longer_marks_it(pinion, memory_path):
    with MemoryRepo.open(memory_path) as repo:
        repo.commit("projects/pinion", {"MEMORY.md": memory_md(superseded=False)}, "consolidate(pinion): memory\n")
        refresh_index(repo, load_config())
    assert holding_old() == {A, C, "MEMORY.md"}  # both notes read again, the unlinked one too
    assert "`npm run build`" in asked(pinion)
    with MemoryRepo.open(memory_path) as repo:  # and marked again: gone again
        repo.commit("projects/pinion", {"MEMORY.md": memory_md(superseded=True)}, "consolidate(pinion): memory\n")
        refresh_index(repo, load_config())
    assert holding_old() == set()
    assert "`npm run build`" not in asked(pinion)


def holding_old() -> set[str]:
    """The files whose search units hold the old learning, word for word (duplicates included)."""
    index = search_reader.reading(load_config().state_dir)
    try:
        found = search_reader.query(index, '"npm run build before packaging"', limit=100)
    finally:
        index.close()
    return {doc.path for doc, _ in found.candidates if doc.text == OLD}
