"""`sync --dry-run` writes nothing anywhere and says what a real sync would; a sync that finds no
agent history says where it looked and which setting moves each folder."""

from __future__ import annotations

import json
import os

from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests.conftest import age


def snapshot(root) -> dict:
    """Every path under root: a file's bytes and mode, a directory's mode, a link's target."""
    out = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            st = os.lstat(path)
            if os.path.islink(path):
                out[path] = ("link", os.readlink(path))
            elif os.path.isdir(path):
                out[path] = ("dir", st.st_mode)
            else:
                with open(path, "rb") as f:
                    out[path] = ("file", st.st_mode, f.read())
    return out


def test_dry_run_on_a_fresh_home_leaves_it_byte_identical_and_says_what_a_sync_would(
        hermetic_env, claude_projects, memory_path, memgit_cli):
    for i, days in enumerate((0.1, 0.2, 40, 50, 60)):
        w = SessionWriter(session_id(f"dry-{i}"), "/home/demo/dev/pinion").user(f"Fix the importer, part {i}.")
        age(w.bash("uv run pytest -x tests/", "12 passed").write(claude_projects), days * 86400)
    before = snapshot(hermetic_env)

    planned = memgit_cli("sync", "--dry-run")
    assert planned.exit_code == 0, planned.stderr
    as_json = json.loads(memgit_cli("sync", "--dry-run", "--json").stdout)
    assert snapshot(hermetic_env) == before and not memory_path.exists()
    assert f"no memory repository yet: a real sync creates it at {memory_path}" in planned.stdout
    assert "3 session(s) are older than 30 days (max_age_days); `memgit sync --all` reads them" in planned.stdout
    assert "2 session(s) would be read (dry run; nothing written)" in planned.stdout
    assert as_json["new_repo"] and as_json["too_old"] == 3 and len(as_json["sessions"]) == 2

    real = memgit_cli("sync")
    assert real.exit_code == 0 and "read 2, extracted 2" in real.stdout
    assert "3 session(s) are older than 30 days" in real.stdout  # the hint the dry run gave
    before = snapshot(hermetic_env)
    again = json.loads(memgit_cli("sync", "--dry-run", "--json", "--all").stdout)  # a repository now: still no write
    assert snapshot(hermetic_env) == before and len(again["sessions"]) == 3 and "new_repo" not in again


def test_a_sync_that_finds_no_history_names_the_folders_and_their_settings(hermetic_env, memgit_cli):
    result = memgit_cli("sync")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert "no agent history found; looked in:" in lines
    assert (f"  claude-code: {hermetic_env / '.claude'} (set by [sources] claude_code in the config file, "
            "or CLAUDE_CONFIG_DIR)") in lines
    data = json.loads(memgit_cli("sync", "--json").stdout)
    assert {x["agent"]: x["folder"] for x in data["looked_in"]} == {
        "claude-code": str(hermetic_env / ".claude"), "codex": str(hermetic_env / ".codex"),
        "gemini-cli": str(hermetic_env / ".gemini")}
