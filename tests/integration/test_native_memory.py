"""Claude Code's own auto memory (`~/.claude/projects/<project>/memory/`) versioned by `memgit sync`:
`import` commits on the project's branch, only when the folder changed; and `memgit status` saying
when a session is told its memory twice. Real temporary git repos and a fake HOME, built per test."""

from __future__ import annotations

import json
import random
import string
import subprocess

import pytest

from memgit.core import redact
from memgit.sources import memory_files
from memgit.sources.claude_code import native_memory
from memgit.sources.claude_code.synthetic import SessionWriter, encode_project_dir, session_id
from tests import faults
from tests.conftest import age, all_refs, fsck, git

INDEX = "# Memory Index\n\n## Project\n- [testing.md](testing.md): run tests with uv run pytest -x\n"
TOPIC = ("---\nname: Testing\ndescription: How this project runs its tests\ntype: feedback\n---\n\n"
         "Run `uv run pytest -x`; plain pytest misses the venv.\n")


@pytest.fixture
def project(tmp_path):
    """A real git repository with an origin remote: its sessions go to projects/pinion."""
    root = tmp_path / "dev" / "pinion"
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    git(root, "remote", "add", "origin", "git@github.com:demo/pinion.git")
    return root


def memory_folder(claude_projects, root, *, session: bool = True):
    """The project's Claude Code folder with a memory/ in it (and, by default, a session at its root)."""
    if session:
        age(SessionWriter(session_id(f"s-{root}"), str(root)).user("Fix the build.").assistant("Done.")
            .write(claude_projects))
    folder = claude_projects / encode_project_dir(str(root)) / "memory"
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text(INDEX)
    (folder / "testing.md").write_text(TOPIC)
    return folder


def imports(repo, branch="projects/pinion") -> list[str]:
    return [s for s in git(repo, "log", "--format=%s", branch).splitlines() if s.startswith("import(")]


def copy_dir(root) -> str:
    return f"imported/claude-code/{encode_project_dir(str(root)).strip('-')}"


def sync(memgit_cli) -> dict:
    result = memgit_cli("sync", "--json")
    assert result.exit_code == 0, result.stdout + result.stderr
    return json.loads(result.stdout)


def test_first_sync_imports_the_memory_onto_the_project_branch(claude_projects, memory_path, memgit_cli, project):
    memory_folder(claude_projects, project)
    summary = sync(memgit_cli)
    assert imports(memory_path) == ["import(pinion): claude-code memory (2 files)"]
    assert [i["branch"] for i in summary["imported"]] == ["projects/pinion"]
    base = copy_dir(project)
    assert git(memory_path, "show", f"projects/pinion:{base}/testing.md") == TOPIC
    assert git(memory_path, "show", f"projects/pinion:{base}/MEMORY.md") == INDEX
    trailers = git(memory_path, "log", "-1", "--format=%(trailers)", "projects/pinion", "--", base)
    assert "Memgit-Import: claude-code" in trailers
    assert f"Memgit-Source: {encode_project_dir(str(project))}" in trailers
    assert "Memgit-Source-Sha256: " in trailers
    assert "imported/" not in git(memory_path, "ls-tree", "-r", "--name-only", "main")  # only its own branch
    fsck(memory_path)


def test_unchanged_memory_commits_nothing_and_a_change_is_one_commit_with_its_diff(
        claude_projects, memory_path, memgit_cli, project):
    folder = memory_folder(claude_projects, project)
    sync(memgit_cli)
    before = all_refs(memory_path)
    assert sync(memgit_cli)["commits"] == 0
    (memory_path / ".git" / "memgit" / "imports.json").unlink()  # derived: without it, the same answer
    assert sync(memgit_cli)["commits"] == 0
    assert all_refs(memory_path) == before

    (folder / "testing.md").write_text(TOPIC.replace("-x", "-x -q"))
    (folder / "debugging.md").write_text("---\nname: Debugging\ntype: reference\n---\nLogs are in /var/log/pinion.\n")
    sync(memgit_cli)
    assert len(imports(memory_path)) == 2
    diff = git(memory_path, "show", "projects/pinion")
    assert "+Run `uv run pytest -x -q`" in diff and "-Run `uv run pytest -x`;" in diff
    assert "added: debugging.md" in diff and "changed: testing.md" in diff
    assert imports(memory_path)[0] == "import(pinion): claude-code memory (3 files)"
    index = json.loads((memory_path / ".git" / "memgit" / "context" / "index.json").read_text())
    assert index["heads"]["projects/pinion"] == git(memory_path, "rev-parse", "projects/pinion").strip()  # fresh

    (folder / "debugging.md").unlink()
    sync(memgit_cli)
    assert len(imports(memory_path)) == 3
    assert "debugging.md" not in git(memory_path, "ls-tree", "-r", "--name-only", "projects/pinion")
    assert "removed: debugging.md" in git(memory_path, "log", "-1", "--format=%B", "projects/pinion")
    fsck(memory_path)


def test_a_revert_brings_the_old_file_back_and_stands(claude_projects, memory_path, memgit_cli, project):
    folder = memory_folder(claude_projects, project)
    sync(memgit_cli)
    (folder / "testing.md").write_text(TOPIC.replace("uv run pytest", "make test"))
    sync(memgit_cli)
    path = f"{copy_dir(project)}/testing.md"
    assert "make test" in git(memory_path, "show", f"projects/pinion:{path}")

    git(memory_path, "switch", "-q", "projects/pinion")
    git(memory_path, "-c", "user.name=u", "-c", "user.email=u@x", "revert", "--no-edit", "HEAD")
    assert git(memory_path, "show", f"projects/pinion:{path}") == TOPIC
    reverted = all_refs(memory_path)
    sync(memgit_cli)  # the folder did not change since: the person's revert stands
    assert all_refs(memory_path) == reverted
    (folder / "testing.md").write_text(TOPIC.replace("uv run pytest", "tox"))  # it changed: copied again
    sync(memgit_cli)
    assert "tox" in git(memory_path, "show", f"projects/pinion:{path}")
    fsck(memory_path)


def test_a_secret_in_a_memory_file_reaches_no_git_object(claude_projects, memory_path, memgit_cli, project):
    token = "ghp_" + "".join(random.choices(string.ascii_letters + string.digits, k=36))
    assert redact.find_secrets(f"token = {token}"), "the generated value must look like a secret"
    folder = memory_folder(claude_projects, project)
    (folder / "deploy.md").write_text(f"---\nname: Deploy\ntype: reference\n---\nThe deploy token is {token}\n")
    sync(memgit_cli)
    objects = subprocess.run(["git", "-C", str(memory_path), "cat-file", "--batch-all-objects", "--batch"],
                             capture_output=True, check=True).stdout
    assert token.encode() not in objects
    copied = git(memory_path, "show", f"projects/pinion:{copy_dir(project)}/deploy.md")
    assert "The deploy token is [REDACTED:" in copied
    fsck(memory_path)


def test_a_folder_without_transcripts_is_placed_by_the_existing_directory_it_encodes(
        claude_projects, memory_path, memgit_cli, project):
    memory_folder(claude_projects, project, session=False)
    assert native_memory.decode_existing(encode_project_dir(str(project))) == str(project)
    sync(memgit_cli)
    assert imports(memory_path) == ["import(pinion): claude-code memory (2 files)"]


def test_binaries_and_big_files_are_left_out(claude_projects, memory_path, memgit_cli, project):
    folder = memory_folder(claude_projects, project)
    (folder / "diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")
    (folder / "dump.md").write_text("x" * (memory_files.MAX_FILE_BYTES + 1))
    (folder / ".MEMORY.md.swp").write_text("editor junk")
    sync(memgit_cli)
    files = git(memory_path, "ls-tree", "-r", "--name-only", "projects/pinion", copy_dir(project)).split()
    assert sorted(f.rsplit("/", 1)[1] for f in files) == ["MEMORY.md", "testing.md"]


def test_an_unreadable_memory_file_is_skipped_with_a_warning(hermetic_env, claude_projects, memory_path, project):
    try:
        drop = faults.unprivileged()
    except RuntimeError as e:
        pytest.skip(f"permissions cannot be made to bind here: {e}")
    folder = memory_folder(claude_projects, project)
    (folder / "private.md").write_text("---\nname: Private\ntype: user\n---\nsecretive\n")
    (folder / "private.md").chmod(0)
    result = faults.memgit(hermetic_env, "sync", "--json", preexec=drop)
    assert result.returncode == 0 and "Traceback" not in result.stdout + result.stderr, result.stderr
    summary = json.loads(result.stdout)
    assert any("private.md not imported (unreadable: Permission denied)" in w for w in summary["warnings"])
    files = git(memory_path, "ls-tree", "-r", "--name-only", "projects/pinion", copy_dir(project)).split()
    assert sorted(f.rsplit("/", 1)[1] for f in files) == ["MEMORY.md", "testing.md"]
    fsck(memory_path)


def test_a_failing_import_never_fails_the_sync(claude_projects, memory_path, memgit_cli, project, monkeypatch):
    memory_folder(claude_projects, project)

    def broken(folder):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(native_memory, "read_folder", broken)
    summary = sync(memgit_cli)
    assert summary["extracted"] + summary["skipped"] == 1
    assert any("Claude Code's memory was not imported" in w for w in summary["warnings"])
    assert imports(memory_path) == []


# ---- double injection ---------------------------------------------------------------------------


def status(memgit_cli, *args) -> tuple[dict, str]:
    data = memgit_cli("status", "--json", *args)
    text = memgit_cli("status", *args)
    assert data.exit_code == 0 and text.exit_code == 0, data.stderr + text.stderr
    return json.loads(data.stdout), text.stdout


@pytest.fixture
def synced(claude_projects, memory_path, memgit_cli, project):
    memory_folder(claude_projects, project)
    sync(memgit_cli)
    return claude_projects.parent / "settings.json"


def test_status_says_when_a_session_gets_its_memory_twice(synced, memgit_cli, project):
    assert memgit_cli("install").exit_code == 0
    data, text = status(memgit_cli)
    [twice] = data["double_injection"]
    assert twice["project_dir"] == encode_project_dir(str(project)) and twice["cwd"] == str(project)
    assert "autoMemoryEnabled" in twice["advice"] and "memgit uninstall" in twice["advice"]
    assert "twice" in text and "autoMemoryEnabled" in text


def test_status_is_quiet_when_auto_memory_is_off_or_the_hook_is_not_installed(synced, memgit_cli, monkeypatch):
    assert status(memgit_cli)[0]["double_injection"] == []  # no hook installed yet
    assert memgit_cli("install").exit_code == 0
    settings = json.loads(synced.read_text())
    synced.write_text(json.dumps({**settings, "autoMemoryEnabled": False}))
    data, text = status(memgit_cli)
    assert data["double_injection"] == [] and "twice" not in text
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "0")  # the variable outranks the setting
    assert len(status(memgit_cli)[0]["double_injection"]) == 1
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
    synced.write_text(json.dumps(settings))
    assert status(memgit_cli)[0]["double_injection"] == []


def test_a_project_setting_turns_auto_memory_off_for_that_project_only(synced, memgit_cli, project):
    assert memgit_cli("install").exit_code == 0
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text('{"autoMemoryEnabled": false}')
    assert status(memgit_cli)[0]["double_injection"] == []


def test_auto_memory_directory_and_claude_config_dir_are_honoured(hermetic_env, tmp_path, monkeypatch):
    root = tmp_path / "claude-config"
    shared = hermetic_env / "notes" / "claude-memory"
    shared.mkdir(parents=True)
    (shared / "MEMORY.md").write_text(INDEX)
    (root / "projects" / "-gone-project" / "memory").mkdir(parents=True)
    (root / "settings.json").write_text(json.dumps({"autoMemoryDirectory": "~/notes/claude-memory"}))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(root))
    from memgit import config

    cfg = config.load()
    found = native_memory.discover(cfg.claude_root, hermetic_env)
    assert [(f.path, f.cwd) for f in found] == [(root / "projects" / "-gone-project" / "memory", None),
                                               (shared, None)]
