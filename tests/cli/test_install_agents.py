"""`memgit install` / `uninstall` for Claude Code, Codex and Gemini CLI in a fake HOME holding all three.

Each agent's file starts as a person has it (other hooks, other keys, their own indentation,
comments in Gemini CLI's settings); install adds exactly memgit's entries, the hooks it installed
answer each agent's payload, and uninstall gives back every file byte for byte.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from memgit.config import load as load_config
from memgit.store.repo import MemoryRepo
from memgit.verbs import install as install_mod
from memgit.verbs.install import jsontext
from tests.conftest import ROOT
from tests.integration.test_hooks import (GLOBAL_MARK, PROJECT_MARK, additional_context, consolidate_by_hand, payload,
                                          sync_pids, wait_for_syncs, world)  # noqa: F401 (world: a fixture)

# Claude Code writes its settings with two-space JSON and no final newline; this one was edited by
# hand with four spaces and keeps a person's hooks on memgit's events and on others.
CLAUDE = """{
    "model": "opus",
    "permissions": {"allow": ["Bash(uv run pytest:*)"], "deny": ["Read(./.env)"]},
    "hooks": {
        "SessionStart": [
            {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello", "timeout": 5}]}
        ],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh"}]}]
    },
    "statusLine": {"type": "command", "command": "~/.claude/statusline.sh"}
}"""
# Codex's hooks.json beside config.toml: a person's own Stop hook, and an empty PreCompact list.
CODEX = """{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "python3 ~/.codex/hooks/notify.py",
            "timeout": 30
          }
        ]
      }
    ],
    "PreCompact": []
  }
}
"""
CODEX_CONFIG = 'model = "gpt-5.5"\napproval_policy = "on-request"\n\n[features]\nhooks = true\n'
# Gemini CLI reads its settings with comments allowed (strip-json-comments); CRLF line endings.
GEMINI = ("{\r\n  // look and feel\r\n  \"ui\": { \"theme\": \"GitHub\" },\r\n  /* my own hooks */\r\n"
          "  \"hooks\": {\r\n    \"BeforeTool\": [\r\n      {\r\n        \"matcher\": \"write_file|replace\",\r\n"
          "        \"hooks\": [{ \"name\": \"guard\", \"type\": \"command\", \"command\": \"~/bin/guard.sh\", "
          "\"timeout\": 5000 }]\r\n      }\r\n    ]\r\n  },\r\n  \"general\": { \"vimMode\": true } // trailing\r\n}\r\n")
OWN_SKILL = "---\nname: my-deploy\ndescription: How I deploy.\n---\nRun ./deploy.sh\n"


@pytest.fixture
def homes(hermetic_env) -> dict[str, Path]:
    """A HOME with ~/.claude, ~/.codex and ~/.gemini as a person has them, and a skill of their own."""
    files = {"claude-code": hermetic_env / ".claude" / "settings.json",
             "codex": hermetic_env / ".codex" / "hooks.json",
             "gemini": hermetic_env / ".gemini" / "settings.json"}
    for (name, path), text in zip(files.items(), (CLAUDE, CODEX, GEMINI)):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())
    (hermetic_env / ".codex" / "config.toml").write_text(CODEX_CONFIG)
    own = hermetic_env / ".claude" / "skills" / "my-deploy" / "SKILL.md"
    own.parent.mkdir(parents=True)
    own.write_text(OWN_SKILL)
    return files


def snapshot(home: Path) -> dict[str, bytes]:
    """Every file under the agents' folders, as bytes."""
    return {str(p.relative_to(home)): p.read_bytes() for d in (".claude", ".codex", ".gemini", ".agents")
            if (home / d).exists() for p in sorted((home / d).rglob("*")) if p.is_file()}


def memgit_groups(doc: dict) -> dict[str, list[dict]]:
    return {event: [g for g in groups if any(map(install_mod.is_memgit_handler, g["hooks"]))]
            for event, groups in doc.get("hooks", {}).items()}


def without_memgit(doc: dict) -> dict:
    """The document minus memgit's groups, and minus event lists left empty (on both sides of a compare)."""
    out = json.loads(json.dumps(doc))
    for event, groups in list(out.get("hooks", {}).items()):
        out["hooks"][event] = [g for g in groups if not any(map(install_mod.is_memgit_handler, g["hooks"]))]
        if not out["hooks"][event]:
            del out["hooks"][event]
    servers = out.get("mcpServers", {})
    if install_mod.mcp_config.is_ours(servers.pop("memgit", None)) and not servers:  # tests/cli/test_install_mcp.py
        del out["mcpServers"]
    return out


def command() -> str:
    return install_mod.memgit_command()


def test_install_wires_every_agent_found_with_exactly_memgits_entries(memgit_cli, homes, hermetic_env):
    result = memgit_cli("install", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert [a["agent"] for a in data["agents"]] == ["claude-code", "codex", "gemini"] and data["changed"]
    docs = {name: jsontext.loads(path.read_text()) for name, path in homes.items()}
    originals = {name: jsontext.loads(text) for name, text in zip(homes, (CLAUDE, CODEX, GEMINI))}
    for name in homes:
        assert without_memgit(docs[name]) == without_memgit(originals[name]), name  # everything else as it was
    m = command()
    assert {e: g for e, g in memgit_groups(docs["claude-code"]).items() if g} == {
        "SessionStart": [{"matcher": "startup|resume|clear|compact",
                          "hooks": [{"type": "command", "command": f"{m} hook session-start", "timeout": 10}]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": f"{m} hook user-prompt-submit", "timeout": 5}]}],
        "SessionEnd": [{"hooks": [{"type": "command", "command": f"{m} hook session-end", "timeout": 1}]}],
        "PreCompact": [{"matcher": "manual|auto",
                        "hooks": [{"type": "command", "command": f"{m} hook pre-compact", "timeout": 10}]}]}
    assert {e: g for e, g in memgit_groups(docs["codex"]).items() if g} == {  # seconds; Codex has no SessionEnd
        "SessionStart": [{"matcher": "startup|resume|clear|compact", "hooks": [
            {"type": "command", "command": f"{m} hook session-start --agent codex", "timeout": 10}]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": f"{m} hook user-prompt-submit --agent codex",
                                         "timeout": 5}]}],
        "PreCompact": [{"hooks": [{"type": "command", "command": f"{m} hook pre-compact --agent codex",
                                   "timeout": 10}]}]}
    assert {e: g for e, g in memgit_groups(docs["gemini"]).items() if g} == {  # milliseconds, named, no matcher
        "SessionStart": [{"hooks": [{"name": "memgit-session-start", "type": "command",
                                     "command": f"{m} hook session-start --agent gemini", "timeout": 10_000}]}],
        "BeforeAgent": [{"hooks": [{"name": "memgit-user-prompt-submit", "type": "command",
                                    "command": f"{m} hook user-prompt-submit --agent gemini", "timeout": 5_000}]}],
        "SessionEnd": [{"hooks": [{"name": "memgit-session-end", "type": "command",
                                   "command": f"{m} hook session-end --agent gemini", "timeout": 5_000}]}],
        "PreCompress": [{"hooks": [{"name": "memgit-pre-compact", "type": "command",
                                    "command": f"{m} hook pre-compact --agent gemini", "timeout": 10_000}]}]}
    # Codex reads hooks.json with deny_unknown_fields: only `hooks`, only its events and handler fields.
    assert set(docs["codex"]) == {"hooks"}
    assert set(docs["codex"]["hooks"]) <= {"PreToolUse", "PermissionRequest", "PostToolUse", "PreCompact",
                                           "PostCompact", "SessionStart", "UserPromptSubmit", "Stop"}
    assert all(set(h) <= {"type", "command", "timeout", "async", "statusMessage"}
               for groups in docs["codex"]["hooks"].values() for g in groups for h in g["hooks"])
    gemini_text = homes["gemini"].read_bytes().decode()
    assert "// look and feel" in gemini_text and "/* my own hooks */" in gemini_text  # comments kept
    assert "\n" not in gemini_text.replace("\r\n", "")  # and its line endings
    text = data_text = memgit_cli("install").stdout
    assert "Codex runs a new or changed hook only once you trust it" in text
    assert data_text.count("already in") == 3  # a second install changes nothing
    assert json.loads(memgit_cli("install", "--json").stdout)["changed"] is False


def test_uninstall_gives_every_file_back_byte_for_byte(memgit_cli, homes, hermetic_env):
    before = snapshot(hermetic_env)
    assert memgit_cli("install").exit_code == 0
    assert memgit_cli("install").exit_code == 0
    assert snapshot(hermetic_env) != before
    result = memgit_cli("uninstall", "--yes")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("back byte for byte") == 3
    assert snapshot(hermetic_env) == before  # the files, their backups gone, nothing published left
    assert not (hermetic_env / ".local" / "state" / "memgit" / "installed.json").exists()
    assert "no memgit hooks" in memgit_cli("uninstall", "--yes").stdout


def test_a_file_memgit_created_is_removed_again(memgit_cli, hermetic_env):
    (hermetic_env / ".codex").mkdir()
    assert memgit_cli("install", "--agent", "codex").exit_code == 0
    hooks = hermetic_env / ".codex" / "hooks.json"
    assert set(json.loads(hooks.read_text())["hooks"]) == {"SessionStart", "UserPromptSubmit", "PreCompact"}
    assert "memgit had created it" in memgit_cli("uninstall", "--yes", "--agent", "codex").stdout
    assert not hooks.exists() and not (hermetic_env / ".claude").exists()  # only the agent named


def test_one_agent_alone_and_the_others_untouched(memgit_cli, homes, hermetic_env):
    before = snapshot(hermetic_env)
    assert memgit_cli("install", "--agent", "gemini").exit_code == 0
    after = snapshot(hermetic_env)
    changed = {k for k in after if after[k] != before.get(k)}
    assert changed == {".gemini/settings.json", ".gemini/skills/memgit-recall/SKILL.md",  # memgit's own skill
                       *(k for k in after if "memgit-backup" in k)}
    memgit_cli("uninstall", "--yes", "--agent", "gemini")
    assert snapshot(hermetic_env) == before


def test_a_file_the_person_changed_meanwhile_keeps_their_change(memgit_cli, homes, hermetic_env):
    memgit_cli("install")
    path = homes["claude-code"]
    path.write_text(path.read_text().replace('"model": "opus"', '"model": "sonnet"'))  # edited by hand since
    result = memgit_cli("uninstall", "--yes", "--agent", "claude-code")
    assert "changed since memgit installed its hooks: removed only memgit's entries" in result.stdout
    assert path.read_bytes() == CLAUDE.replace('"model": "opus"', '"model": "sonnet"').encode()


def test_a_file_the_agent_rewrote_gets_memgits_handlers_parsed_out(memgit_cli, homes):
    memgit_cli("install")
    path = homes["claude-code"]
    doc = json.loads(path.read_text())
    doc["hooks"]["Stop"] = [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
    path.write_text(json.dumps(doc, indent=2))  # as Claude Code writes it after /hooks
    result = memgit_cli("uninstall", "--yes", "--agent", "claude-code")
    assert "was rewritten since memgit installed its hooks" in result.stdout
    expected = json.loads(CLAUDE)
    expected["hooks"]["Stop"] = doc["hooks"]["Stop"]
    assert json.loads(path.read_text()) == expected


def test_no_agent_found_is_a_clear_error(memgit_cli):
    result = memgit_cli("install")
    assert result.exit_code == 4 and "no coding agent found" in result.stderr
    assert "unknown agent 'cursor'" in memgit_cli("install", "--agent", "cursor").stderr


def test_codex_hooks_turned_off_are_reported(memgit_cli, homes, hermetic_env):
    (hermetic_env / ".codex" / "config.toml").write_text("[features]\nhooks = false\n")
    assert "hooks are turned off" in memgit_cli("install", "--agent", "codex").stdout


# ---- the installed hooks, run as each agent runs them ----------------------------------------------


def run_installed(line: str, stdin: bytes, cwd: Path) -> subprocess.CompletedProcess:
    """Run an installed hook command through a shell, as the agents do."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(line, shell=True, input=stdin, capture_output=True, env=env, cwd=cwd, timeout=30)


def installed_command(path: Path, event: str) -> str:
    [group] = memgit_groups(jsontext.loads(path.read_text()))[event]
    return group["hooks"][0]["command"]


@pytest.mark.parametrize("agent,event,stdin", [
    ("claude-code", "SessionStart", "session-start-startup.json"),
    ("codex", "SessionStart", "codex-session-start.json"),
    ("gemini", "SessionStart", "gemini-session-start.json"),
])
def test_each_agents_installed_session_start_hook_answers_in_its_shape(world, memgit_cli, hermetic_env, agent,
                                                                       event, stdin):
    home = {"claude-code": ".claude/settings.json", "codex": ".codex/hooks.json", "gemini": ".gemini/settings.json"}
    (hermetic_env / home[agent]).parent.mkdir(parents=True, exist_ok=True)
    assert memgit_cli("install", "--agent", agent).exit_code == 0
    line = installed_command(hermetic_env / home[agent], event)
    # This interpreter runs memgit's hook launcher (no console script: its wrapper imports `re`), without site.
    assert shlex.split(line) == [sys.executable, "-S", str(install_mod.LAUNCHER), "hook", "session-start"] + (
        ["--agent", agent] if agent != "claude-code" else [])
    done = run_installed(line, payload(stdin, cwd=str(world)), world)
    text = additional_context(done)  # exactly {"hookSpecificOutput": {"hookEventName", "additionalContext"}}
    assert PROJECT_MARK in text and GLOBAL_MARK in text
    answer = json.loads(done.stdout)
    # Codex's output schema allows nothing else in hookSpecificOutput but `env`; Gemini CLI's the same two keys.
    assert set(answer["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
    assert done.stdout.count(b"\n") == 1 and done.stderr == b""  # Gemini CLI: stdout holds the JSON alone


@pytest.mark.parametrize("agent,arg,stdin", [("codex", "pre-compact", "codex-pre-compact.json"),
                                             ("gemini", "session-end", "gemini-session-end.json")])
def test_each_agents_end_hooks_start_a_background_sync_for_its_session(world, memory_path, agent, arg, stdin):
    data = json.loads((ROOT / "tests" / "data" / "hooks" / stdin).read_text())
    line = f"{install_mod.memgit_command()} hook {arg} --agent {agent}"
    done = run_installed(line, payload(stdin, cwd=str(world)), world)
    assert done.returncode == 0 and done.stdout == b""
    state = memory_path / ".git" / "memgit"
    wait_for_syncs(state)
    assert sync_pids(state) and f"--session {data['session_id']}" in (state / "hook-sync.log").read_text()


def test_an_unknown_agent_argument_fails_open(world):
    done = run_installed(f"{install_mod.memgit_command()} hook session-start --agent cursor",
                         payload("session-start-startup.json", cwd=str(world)), world)
    assert done.returncode == 0 and done.stdout == b""


# ---- skills, published where each agent looks -----------------------------------------------------

SKILL = """---
name: pinion-run-tests
description: Run the tests of pinion with `uv run pytest` (worked in 3 sessions); use when you need to run them.
---
# Run the tests of pinion

1. `uv run pytest -x tests/` — 3 sessions

## Sessions

- [2026-11-20 Fix export tests](../../sessions/2026/11/2026-11-20-fix-export-tests-6f1c2e4a.md)
"""
PUBLISHED = "memgit-pinion-run-tests"


def published(home: Path) -> dict[str, Path]:
    return {"claude-code": home / ".claude" / "skills" / PUBLISHED / "SKILL.md",
            "codex": home / ".agents" / "skills" / PUBLISHED / "SKILL.md",
            "gemini": home / ".gemini" / "skills" / PUBLISHED / "SKILL.md"}


def test_skills_are_published_namespaced_followed_and_removed(world, memory_path, memgit_cli, homes, hermetic_env):
    consolidate_by_hand(memory_path, "projects/pinion", {"skills/pinion-run-tests/SKILL.md": SKILL})
    result = memgit_cli("install", "--json")
    assert result.exit_code == 0, result.stderr
    files = published(hermetic_env)
    for agent, file in files.items():
        text = file.read_text()
        meta = text.split("---\n")[1]
        assert f"name: {PUBLISHED}\n" in meta and "description: Run the tests of pinion" in meta, agent
        assert "published by memgit from projects/pinion:skills/pinion-run-tests/SKILL.md" in text
        assert ("Fix export tests (`memgit show projects/pinion:sessions/2026/11/"
                "2026-11-20-fix-export-tests-6f1c2e4a.md`)") in text  # no dead relative link
    assert f"published {files['claude-code']}" in json.loads(result.stdout)["skills"]["claude-code"]
    own = hermetic_env / ".claude" / "skills" / "my-deploy" / "SKILL.md"

    # A sync that moves a branch publishes what consolidation changed, and drops what it removed.
    consolidate_by_hand(memory_path, "projects/pinion", {
        "skills/pinion-run-tests/SKILL.md": SKILL.replace("3 sessions", "4 sessions"),
        "skills/pinion-lint/SKILL.md": SKILL.replace("pinion-run-tests", "pinion-lint")})
    cfg = load_config()
    with MemoryRepo.open(memory_path) as repo:
        install_mod.publish_skills(repo, cfg)
    assert "4 sessions" in files["codex"].read_text()
    assert (hermetic_env / ".gemini" / "skills" / "memgit-pinion-lint" / "SKILL.md").is_file()
    with MemoryRepo.open(memory_path) as repo:
        repo.commit("projects/pinion", {"skills/pinion-lint/SKILL.md": None}, "consolidate(pinion): no lint\n")
        install_mod.publish_skills(repo, cfg)
    assert not (hermetic_env / ".gemini" / "skills" / "memgit-pinion-lint").exists()

    # A copy a person changed is theirs; a folder memgit did not make is never touched.
    files["gemini"].write_text(files["gemini"].read_text() + "\nmy note\n")
    theirs = hermetic_env / ".agents" / "skills" / "memgit-pinion-lint" / "SKILL.md"
    theirs.parent.mkdir(parents=True)
    theirs.write_text("mine\n")
    consolidate_by_hand(memory_path, "projects/pinion", {
        "skills/pinion-run-tests/SKILL.md": SKILL.replace("3 sessions", "5 sessions"),
        "skills/pinion-lint/SKILL.md": SKILL.replace("pinion-run-tests", "pinion-lint")})
    with MemoryRepo.open(memory_path) as repo:
        install_mod.publish_skills(repo, cfg)
    assert "5 sessions" in files["claude-code"].read_text() and "5 sessions" not in files["gemini"].read_text()
    assert theirs.read_text() == "mine\n"

    result = memgit_cli("uninstall", "--yes")
    assert result.exit_code == 0 and f"removed {files['claude-code']}" in result.stdout
    assert not files["claude-code"].exists() and not files["codex"].exists()
    assert files["gemini"].read_text().endswith("\nmy note\n")  # theirs now: uninstall leaves it
    assert theirs.read_text() == "mine\n" and own.read_text() == OWN_SKILL


def test_sync_publishes_the_skills_it_changed(world, memory_path, memgit_cli, homes, hermetic_env, claude_projects):
    from tests.conftest import age
    from tests.integration.test_hooks import project_session

    memgit_cli("install", "--agent", "claude-code")
    consolidate_by_hand(memory_path, "projects/pinion", {"skills/pinion-run-tests/SKILL.md": SKILL})
    age(project_session(world, "second-session").write(claude_projects))
    assert memgit_cli("sync").exit_code == 0  # moves projects/pinion: the skill follows
    assert published(hermetic_env)["claude-code"].is_file()


def test_a_published_skill_passes_redaction_again(world, memory_path, memgit_cli, homes, hermetic_env):
    consolidate_by_hand(memory_path, "projects/pinion", {
        "skills/pinion-run-tests/SKILL.md": SKILL.replace("3 sessions", "3 sessions, ticket ACME-INTERNAL-4242")})
    config = hermetic_env / ".config" / "memgit" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[redact]\nextra_patterns = ["ACME-INTERNAL-[0-9]+"]\n')  # added after the commit
    result = memgit_cli("install", "--agent", "claude-code")
    text = published(hermetic_env)["claude-code"].read_text()
    assert "ACME-INTERNAL-4242" not in text and "[REDACTED:custom]" in text
    assert "secret(s) redacted in the published copy" in result.stdout


def test_published_names_are_namespaced_and_valid():
    name = install_mod.skills.published_name
    assert name("pinion", "pinion-run-tests") == "memgit-pinion-run-tests"
    assert name("global", "write-commits") == "memgit-global-write-commits"
    long = name("a" * 60, "b" * 60)
    assert len(long) <= 64 and long.startswith("memgit-") and not long.endswith("-")


def test_readme_install_section_names_every_agent_and_the_undo():
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Install"):]
    section = section[:section.index("\n## ", 4)]
    for words in ("Claude Code", "Codex", "Gemini CLI", "memgit uninstall", "--agent", "/hooks", "skills"):
        assert words in section, words
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert pyproject["project"]["name"] == "memgit"
