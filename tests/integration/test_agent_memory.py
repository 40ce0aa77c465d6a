"""Codex's and Gemini CLI's own memory versioned by `memgit sync`, from files laid out as the agents
write them: Codex's `$CODEX_HOME/memories/` (codex-rs/core/src/memories: MEMORY.md, memory_summary.md,
rollout_summaries/ whose header names the thread's cwd, skills/), Gemini CLI's private project
memory `~/.gemini/tmp/<slug>/memory/` (Memory v2) and the `## Gemini Added Memories` section its
`save_memory` tool kept in `~/.gemini/GEMINI.md`. Real temporary git repos and a fake HOME."""

from __future__ import annotations

import json
import random
import string
import subprocess

import pytest

from memgit.core import redact
from tests.conftest import all_refs, fsck, git
from tests.integration.test_native_memory import project  # noqa: F401  (a fixture)

SUMMARY = "v1\n## User preferences\n- Prefers small commits with imperative subjects.\n"
HANDBOOK = "# Memory handbook\n\n## pinion\n- Tests run with `uv run pytest -x`.\n"
SKILL = "---\nname: release\ndescription: How pinion is released\n---\n\nRun `make release`.\n"


@pytest.fixture
def codex_memories(hermetic_env, project):
    """`~/.codex/memories/` as Codex's phase 2 leaves it: global files, one rollout summary of pinion."""
    folder = hermetic_env / ".codex" / "memories"
    (folder / "rollout_summaries").mkdir(parents=True)
    (folder / "skills" / "release").mkdir(parents=True)
    (folder / "MEMORY.md").write_text(HANDBOOK)
    (folder / "memory_summary.md").write_text(SUMMARY)
    (folder / "raw_memories.md").write_text("# Raw memories\n\n- thread 1: fixed the flaky test.\n")
    (folder / "skills" / "release" / "SKILL.md").write_text(SKILL)
    (folder / "rollout_summaries" / "2026-11-20T10-00-00-fix_flaky_test.md").write_text(
        "thread_id: 0194f5a6-89ab-7cde-8123-456789abcdef\nupdated_at: 2026-11-20T10:00:00+00:00\n"
        f"rollout_path: {hermetic_env}/.codex/sessions/2026/11/20/rollout-x.jsonl\ncwd: {project}\n"
        "git_branch: main\n\n# Fix the flaky test\nThe clock fixture must be frozen before the app starts.\n")
    return folder


def sync(memgit_cli) -> dict:
    result = memgit_cli("sync", "--json")
    assert result.exit_code == 0, result.stdout + result.stderr
    return json.loads(result.stdout)


def imports(repo, branch) -> list[str]:
    return [s for s in git(repo, "log", "--format=%s", branch).splitlines() if s.startswith("import(")]


def files(repo, branch, base) -> list[str]:
    return sorted(p.removeprefix(base + "/") for p in git(repo, "ls-tree", "-r", "--name-only", branch, base).split())


CODEX = "imported/codex/memories"


def revert_last(memory_path, branch: str) -> None:
    """The person's `git revert` of the last commit on `branch`, by hand in the memory repository."""
    git(memory_path, "switch", "-q", branch)
    git(memory_path, "-c", "user.name=u", "-c", "user.email=u@x", "revert", "--no-edit", "HEAD")


def test_codex_memories_are_global_except_the_summaries_naming_a_project(codex_memories, memory_path, memgit_cli):
    summary = sync(memgit_cli)
    assert sorted((i["agent"], i["branch"]) for i in summary["imported"]) == [("codex", "main"),
                                                                             ("codex", "projects/pinion")]
    assert files(memory_path, "main", CODEX) == ["MEMORY.md", "memory_summary.md", "raw_memories.md",
                                                 "skills/release/SKILL.md"]
    assert files(memory_path, "projects/pinion", CODEX) == ["rollout_summaries/2026-11-20T10-00-00-fix_flaky_test.md"]
    assert git(memory_path, "show", f"main:{CODEX}/memory_summary.md") == SUMMARY
    assert imports(memory_path, "main") == ["import(main): codex memory (4 files)"]
    assert "Memgit-Import: codex" in git(memory_path, "log", "-1", "--format=%(trailers)", "main")

    before = all_refs(memory_path)
    assert sync(memgit_cli)["commits"] == 0 and all_refs(memory_path) == before  # unchanged: nothing
    (codex_memories / "memory_summary.md").write_text(SUMMARY + "- Uses uv, never pip.\n")
    (codex_memories / "skills" / "release" / "SKILL.md").unlink()
    sync(memgit_cli)
    body = git(memory_path, "log", "-1", "--format=%B", "main")
    assert "changed: memory_summary.md" in body and "removed: skills/release/SKILL.md" in body
    assert files(memory_path, "main", CODEX) == ["MEMORY.md", "memory_summary.md", "raw_memories.md"]
    assert files(memory_path, "projects/pinion", CODEX)  # the project's part was not touched
    fsck(memory_path)


def test_a_revert_of_a_codex_import_stands_until_codex_changes_the_file(codex_memories, memory_path, memgit_cli):
    sync(memgit_cli)
    (codex_memories / "MEMORY.md").write_text(HANDBOOK + "- Wrong: deploys go through Heroku.\n")
    sync(memgit_cli)
    revert_last(memory_path, "main")
    reverted = all_refs(memory_path)
    sync(memgit_cli)
    assert all_refs(memory_path) == reverted
    assert git(memory_path, "show", f"main:{CODEX}/MEMORY.md") == HANDBOOK
    (codex_memories / "MEMORY.md").write_text(HANDBOOK + "- Deploys go through Fly.\n")
    sync(memgit_cli)
    assert "Fly" in git(memory_path, "show", f"main:{CODEX}/MEMORY.md")
    fsck(memory_path)


def test_codex_home_moves_the_folder_and_a_secret_reaches_no_object(hermetic_env, project, memory_path,
                                                                   memgit_cli, monkeypatch):
    token = "ghp_" + "".join(random.choices(string.ascii_letters + string.digits, k=36))
    assert redact.find_secrets(f"token = {token}")
    folder = hermetic_env / "elsewhere" / "memories"
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text(f"# Memory\n- The deploy token is {token}\n")
    monkeypatch.setenv("CODEX_HOME", str(folder.parent))
    sync(memgit_cli)
    objects = subprocess.run(["git", "-C", str(memory_path), "cat-file", "--batch-all-objects", "--batch"],
                             capture_output=True, check=True).stdout
    assert token.encode() not in objects
    assert "The deploy token is [REDACTED:" in git(memory_path, "show", f"main:{CODEX}/MEMORY.md")
    fsck(memory_path)


# ---- Gemini CLI ---------------------------------------------------------------------------------

PERSONAL = "# My instructions\n\nAnswer briefly.\n\n"
ADDED = "## Gemini Added Memories\n- The user's preferred test runner is pytest.\n- Staging lives at staging.example.org.\n"


@pytest.fixture
def gemini(hermetic_env, project):
    """~/.gemini with pinion's private memory folder (Memory v2) and a GEMINI.md holding saved memories."""
    root = hermetic_env / ".gemini"
    folder = root / "tmp" / "pinion" / "memory"
    folder.mkdir(parents=True)
    (root / "tmp" / "pinion" / ".project_root").write_text(str(project))
    (root / "projects.json").write_text(json.dumps({"projects": {str(project): "pinion"}}))
    (folder / "MEMORY.md").write_text("# Project memory\n- [build.md](build.md): how pinion builds\n")
    (folder / "build.md").write_text("Build with `make`; `make dist` needs Go 1.23.\n")
    (root / "GEMINI.md").write_text(PERSONAL + ADDED)
    return root


def test_gemini_memory_folder_goes_to_its_project_and_added_memories_to_main(gemini, memory_path, memgit_cli):
    sync(memgit_cli)
    base = "imported/gemini-cli/pinion"
    assert files(memory_path, "projects/pinion", base) == ["MEMORY.md", "build.md"]
    assert imports(memory_path, "projects/pinion") == ["import(pinion): gemini-cli memory (2 files)"]
    copied = git(memory_path, "show", "main:imported/gemini-cli/global/GEMINI.md")
    assert copied == ADDED.replace("\n-", "\n\n-", 1)  # the section alone: the person's instructions stay out
    assert "Answer briefly" not in copied

    folder = gemini / "tmp" / "pinion" / "memory"
    (folder / "build.md").unlink()
    (folder / "release.md").write_text("Releases are tagged vX.Y.Z from main.\n")
    (gemini / "GEMINI.md").write_text(PERSONAL)  # the person removed the section
    sync(memgit_cli)
    assert files(memory_path, "projects/pinion", base) == ["MEMORY.md", "release.md"]
    assert "removed: build.md" in git(memory_path, "log", "-1", "--format=%B", "projects/pinion")
    assert files(memory_path, "main", "imported/gemini-cli/global") == []
    fsck(memory_path)


def test_a_revert_of_a_gemini_import_stands_until_gemini_changes_the_file(gemini, memory_path, memgit_cli):
    sync(memgit_cli)
    folder = gemini / "tmp" / "pinion" / "memory"
    (folder / "build.md").write_text("Build with bazel.\n")
    sync(memgit_cli)
    revert_last(memory_path, "projects/pinion")
    reverted = all_refs(memory_path)
    sync(memgit_cli)
    assert all_refs(memory_path) == reverted
    (folder / "build.md").write_text("Build with `make all`.\n")
    sync(memgit_cli)
    assert git(memory_path, "show", "projects/pinion:imported/gemini-cli/pinion/build.md") == "Build with `make all`.\n"
    fsck(memory_path)


def test_status_names_each_agent_whose_own_memory_is_injected_too(gemini, codex_memories, memory_path, memgit_cli):
    sync(memgit_cli)
    (codex_memories.parent / "config.toml").write_text("[features]\nmemories = true\n")
    assert memgit_cli("status", "--json").exit_code == 0
    assert json.loads(memgit_cli("status", "--json").stdout)["double_injection"] == []  # no hook of memgit's yet
    assert memgit_cli("install", "--agent", "codex", "--agent", "gemini").exit_code == 0
    data = json.loads(memgit_cli("status", "--json").stdout)
    twice = {(d["agent"], d["auto_memory"].split(" ")[0]) for d in data["double_injection"]}
    assert twice == {("codex", str(codex_memories / "memory_summary.md")),
                     ("gemini-cli", "the"), ("gemini-cli", str(gemini / "tmp" / "pinion" / "memory" / "MEMORY.md"))}
    text = memgit_cli("status").stdout
    assert "memory told twice: codex loads its own memory" in text and "uninstall --agent gemini" in text
