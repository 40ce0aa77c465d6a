"""`memgit install` / `uninstall` on Claude Code's settings.json, and the plugin at the repository root."""

from __future__ import annotations

import copy
import json
import re
import tomllib

import pytest

from memgit.verbs import install as install_mod
from tests.conftest import ROOT, git

# A settings file as a person has it: other keys, other hooks on the events memgit uses and on others.
ORIGINAL = {
    "model": "opus",
    "permissions": {"allow": ["Bash(uv run pytest:*)"], "deny": ["Read(./.env)"]},
    "env": {"FOO": "bar"},
    "hooks": {
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello", "timeout": 5}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done", "async": True}]}],
    },
    "statusLine": {"type": "command", "command": "~/.claude/statusline.sh"},
}
EVENTS = ("SessionStart", "UserPromptSubmit", "SessionEnd", "PreCompact")


def memgit_handlers(settings: dict) -> dict[str, list[dict]]:
    return {event: [h for g in groups for h in g["hooks"] if install_mod.is_memgit_handler(h)]
            for event, groups in settings.get("hooks", {}).items()}


def without_memgit(settings: dict) -> dict:
    """The settings minus memgit's groups: what must stay exactly as it was."""
    out = copy.deepcopy(settings)
    for event in EVENTS:
        out["hooks"][event] = [g for g in out["hooks"].get(event, [])
                               if not any(map(install_mod.is_memgit_handler, g["hooks"]))]
        if not out["hooks"][event]:
            del out["hooks"][event]
    return out


@pytest.fixture
def settings(tmp_path):
    path = tmp_path / "claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(ORIGINAL, indent=4) + "\n")
    return path


def test_install_adds_memgit_once_keeps_everything_else_and_uninstall_restores(memgit_cli, settings):
    for run in range(3):
        result = memgit_cli("install", "--settings", str(settings), "--json")
        assert result.exit_code == 0, result.stderr
        data = json.loads(result.stdout)
        assert data["changed"] is (run == 0)
        installed = json.loads(settings.read_text())
        assert without_memgit(installed) == ORIGINAL  # every other key and hook untouched
        handlers = memgit_handlers(installed)
        assert {e: len(handlers.get(e, [])) for e in EVENTS} == {e: 1 for e in EVENTS}
    commands = {e: handlers[e][0]["command"] for e in EVENTS}
    assert commands["SessionStart"].endswith(" hook session-start")
    assert commands["UserPromptSubmit"].endswith(" hook user-prompt-submit")
    assert commands["SessionEnd"].endswith(" hook session-end") and commands["PreCompact"].endswith(" hook pre-compact")
    groups = {e: next(g for g in installed["hooks"][e] if handlers[e][0] in g["hooks"]) for e in EVENTS}
    assert groups["SessionStart"]["matcher"] == "startup|resume|clear|compact"
    assert groups["PreCompact"]["matcher"] == "manual|auto" and "matcher" not in groups["SessionEnd"]
    assert "matcher" not in groups["UserPromptSubmit"]  # it has none (ignored if given)
    assert handlers["SessionEnd"][0]["timeout"] <= 1.5  # SessionEnd hooks share a 1.5 s budget
    backups = sorted(settings.parent.glob("settings.json.memgit-backup-*"))
    assert len(backups) == 1 and json.loads(backups[0].read_text()) == ORIGINAL  # written before the change

    result = memgit_cli("uninstall", "--yes", "--settings", str(settings))
    assert result.exit_code == 0 and "SessionStart: removed" in result.stdout
    assert json.loads(settings.read_text()) == ORIGINAL
    again = memgit_cli("uninstall", "--yes", "--settings", str(settings))
    assert "nothing changed" in again.stdout and json.loads(settings.read_text()) == ORIGINAL


def test_install_tells_what_it_changed(memgit_cli, settings):
    out = memgit_cli("install", "--settings", str(settings)).stdout
    assert f"Claude Code: changed {settings}:" in out and "SessionStart (startup|resume|clear|compact): added" in out
    assert "Backup of the previous file: " in out and "memgit context" in out and "memgit uninstall" in out
    assert "already in" in memgit_cli("install", "--settings", str(settings)).stdout


def test_install_into_no_settings_file_and_back(memgit_cli, tmp_path):
    path = tmp_path / "fresh" / "settings.json"
    assert memgit_cli("install", "--settings", str(path)).exit_code == 0
    assert set(json.loads(path.read_text())) == {"hooks"}
    assert not list(path.parent.glob("*.memgit-backup-*"))  # nothing to back up
    out = memgit_cli("uninstall", "--yes", "--settings", str(path)).stdout
    assert not path.exists() and "memgit had created it" in out  # a file that did not exist is removed again


def test_dry_run_writes_nothing(memgit_cli, settings):
    before = settings.read_bytes()
    data = json.loads(memgit_cli("install", "--settings", str(settings), "--dry-run", "--json").stdout)
    [claude] = data["agents"]
    assert data["dry_run"] and data["changed"] and len(claude["changes"]) == len(EVENTS) and claude["backup"] is None
    assert settings.read_bytes() == before and not list(settings.parent.glob("*.memgit-backup-*"))


def test_a_broken_settings_file_is_left_alone(memgit_cli, settings):
    settings.write_text('{"model": "opus",,}')
    result = memgit_cli("install", "--settings", str(settings))
    assert result.exit_code == 4 and "is not valid JSON" in result.stderr
    assert settings.read_text() == '{"model": "opus",,}'
    settings.write_text('{"hooks": []}')
    assert memgit_cli("install", "--settings", str(settings)).exit_code == 4


def test_an_older_memgit_entry_is_updated_not_duplicated(settings):
    doc = copy.deepcopy(ORIGINAL)
    doc["hooks"]["SessionStart"].append(
        {"matcher": "startup", "hooks": [{"type": "command", "command": "/old/venv/bin/memgit hook session-start"}]})
    settings.write_text(json.dumps(doc))
    result = install_mod.install(settings, command="/new/bin/memgit")
    assert result.changes[0] == ("SessionStart (startup|resume|clear|compact): updated "
                                 "`/new/bin/memgit hook session-start`")
    handlers = memgit_handlers(json.loads(settings.read_text()))
    assert [h["command"] for h in handlers["SessionStart"]] == ["/new/bin/memgit hook session-start"]


def test_uninstall_keeps_a_persons_hook_sharing_a_group_with_memgit(settings):
    doc = copy.deepcopy(ORIGINAL)
    doc["hooks"]["SessionStart"][0]["hooks"].append({"type": "command", "command": "memgit hook session-start"})
    settings.write_text(json.dumps(doc))
    install_mod.uninstall(settings)
    assert json.loads(settings.read_text()) == ORIGINAL


def test_a_symlinked_settings_file_stays_a_symlink(memgit_cli, tmp_path):
    target = tmp_path / "dotfiles" / "claude-settings.json"
    target.parent.mkdir()
    target.write_text(json.dumps(ORIGINAL))
    link = tmp_path / "settings.json"
    link.symlink_to(target)
    memgit_cli("install", "--settings", str(link))
    assert link.is_symlink() and memgit_handlers(json.loads(target.read_text()))["SessionEnd"]


def test_the_default_settings_file_follows_claude_config_dir(memgit_cli, hermetic_env, monkeypatch, tmp_path):
    assert memgit_cli("install", "--agent", "claude-code").exit_code == 0
    assert (hermetic_env / ".claude" / "settings.json").is_file()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-alt"))
    memgit_cli("install", "--agent", "claude-code")
    assert (tmp_path / "claude-alt" / "settings.json").is_file()


def test_memgit_handlers_are_recognised_in_every_spelling():
    yes = ["memgit hook session-start", "/home/u/.local/bin/memgit hook session-end",
           "'/Applications/My Tools/memgit' hook pre-compact", "/usr/bin/python3 -m memgit.entry hook session-start",
           "/home/u/.local/bin/memgit hook user-prompt-submit --agent gemini"]
    no = ["echo memgit", "memgit sync", "~/bin/guard.sh", "memgit-hook session-start"]
    assert all(install_mod.is_memgit_handler({"type": "command", "command": c}) for c in yes)
    assert not any(install_mod.is_memgit_handler({"type": "command", "command": c}) for c in no)
    assert install_mod.is_memgit_handler({"type": "command", "command": "/x/memgit", "args": ["hook", "session-end"]})


# ---- uninstall --purge ----------------------------------------------------------------------------


def test_purge_deletes_the_memory_repository_only_when_told_to(memgit_cli, settings, memory_path):
    memgit_cli("init")
    assert memgit_cli("install", "--settings", str(settings)).exit_code == 0
    installed = settings.read_bytes()
    for extra in ((), ("--json",)):  # nobody to ask: nothing is done, not even the part that needs no asking
        kept = memgit_cli("uninstall", "--settings", str(settings), "--purge", *extra, input="y\n")
        assert kept.exit_code == 2 and memory_path.is_dir() and settings.read_bytes() == installed
    assert kept.stdout.count("\n") == 1 and "--yes" in json.loads(kept.stdout)["error"]["message"]
    gone = memgit_cli("uninstall", "--settings", str(settings), "--purge", "--yes", "--json")
    assert json.loads(gone.stdout)["purged"] == str(memory_path) and not memory_path.exists()
    none = memgit_cli("uninstall", "--settings", str(settings), "--purge", "--yes")
    assert "nothing to delete" in none.stdout


def test_purge_deletes_only_a_repository_memgit_made(memgit_cli, settings, memory_path):
    memory_path.mkdir(parents=True)
    git(memory_path, "init", "-q")
    git(memory_path, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty",
        "-m", "mine")
    result = memgit_cli("uninstall", "--settings", str(settings), "--purge", "--yes")
    assert result.exit_code == 1 and "did not create" in result.stderr and memory_path.is_dir()


# ---- the plugin: the repository root as a Claude Code plugin ----------------------------------------

# transcript-formats §2.4: the manifest's fields; §2.1-2.3: events, matchers, handler fields.
PLUGIN_FIELDS = {"name": str, "displayName": str, "version": str, "description": str, "author": dict,
                 "homepage": str, "repository": (str, dict), "license": str, "keywords": list,
                 "hooks": (str, list, dict), "mcpServers": (str, dict), "skills": (str, list),
                 "commands": (str, list), "agents": (str, list), "userConfig": dict, "dependencies": (list, dict),
                 "defaultEnabled": bool}
MATCHES = {"SessionStart": {"startup", "resume", "clear", "compact", "fork"},
           "SessionEnd": {"clear", "resume", "logout", "prompt_input_exit", "other"},
           "PreCompact": {"manual", "auto"}, "UserPromptSubmit": set()}
HANDLER_FIELDS = {"type", "command", "args", "timeout", "statusMessage", "async", "asyncRewake", "shell", "if", "once"}


def test_plugin_manifest_follows_the_documented_schema():
    manifest = json.loads((ROOT / ".claude-plugin" / "plugin.json").read_text())
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", manifest["name"])  # required, kebab-case
    for key, value in manifest.items():
        assert key in PLUGIN_FIELDS and isinstance(value, PLUGIN_FIELDS[key]), key
    assert isinstance(manifest["author"].get("name"), str)
    # hooks/hooks.json is loaded by convention; naming it again makes Claude Code load it twice.
    assert "hooks" not in manifest
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert manifest["version"] == pyproject["project"]["version"]
    assert not (ROOT / ".claude-plugin" / "hooks").exists()  # components live at the plugin root


def test_plugin_hooks_follow_the_documented_schema_and_match_install():
    doc = json.loads((ROOT / "hooks" / "hooks.json").read_text())
    assert set(doc) <= {"description", "hooks"} and isinstance(doc.get("description", ""), str)
    assert set(doc["hooks"]) == set(EVENTS)
    for event, groups in doc["hooks"].items():
        assert isinstance(groups, list) and groups
        for group in groups:
            assert set(group) <= {"matcher", "hooks"}
            if "matcher" in group:
                assert set(re.split(r"[|,]", group["matcher"])) <= MATCHES[event]
            for handler in group["hooks"]:
                assert set(handler) <= HANDLER_FIELDS
                assert handler["type"] == "command" and isinstance(handler["command"], str)
                assert isinstance(handler.get("timeout", 1), int | float) and handler.get("timeout", 1) > 0
                assert install_mod.is_memgit_handler(handler)
        assert groups == [install_mod.memgit_group(event, "memgit")]  # the same hooks `memgit install` adds
    assert doc["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"] <= 1.5
