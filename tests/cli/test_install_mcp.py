"""`memgit install` registers `memgit mcp` in each agent's MCP config; `uninstall` takes exactly it out.

Claude Code: ~/.claude.json `mcpServers` (user scope); Codex: ~/.codex/config.toml `[mcp_servers.memgit]`;
Gemini CLI: ~/.gemini/settings.json `mcpServers` (the file that holds its hooks too). Each file starts as
a person (or the agent) has it; the entry install wrote starts a server the MCP SDK's client talks to.
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

import pytest

from memgit.verbs import install as install_mod
from memgit.verbs.install import jsontext
from tests.cli.test_install_agents import CODEX_CONFIG, homes, snapshot  # noqa: F401 (homes: a fixture)

# Claude Code's own state file: two-space JSON, no final newline, a server of the person's already.
CLAUDE_STATE = ('{\n  "numStartups": 12,\n  "mcpServers": {\n    "github": {\n      "type": "stdio",\n'
                '      "command": "npx",\n      "args": ["-y", "@modelcontextprotocol/server-github"]\n    }\n  },\n'
                '  "projects": {"/home/u/dev/pinion": {"allowedTools": []}}\n}')


@pytest.fixture
def mcp_homes(homes, hermetic_env) -> dict[str, Path]:
    """The agents' MCP configs: ~/.claude.json as Claude Code keeps it, Codex's config.toml, Gemini's settings."""
    (hermetic_env / ".claude.json").write_text(CLAUDE_STATE)
    return {"claude-code": hermetic_env / ".claude.json", "codex": hermetic_env / ".codex" / "config.toml",
            "gemini": homes["gemini"]}


def everything(home: Path) -> dict[str, bytes]:
    return {**snapshot(home), **({".claude.json": (home / ".claude.json").read_bytes()}
                                 if (home / ".claude.json").exists() else {})}


def servers(agent: str, path: Path) -> dict:
    text = path.read_text()
    return tomllib.loads(text)["mcp_servers"] if agent == "codex" else jsontext.loads(text)["mcpServers"]


def test_install_registers_the_server_with_each_agent_and_uninstall_gives_the_files_back(memgit_cli, mcp_homes,
                                                                                         hermetic_env):
    before = everything(hermetic_env)
    result = memgit_cli("install", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert [(m["agent"], m["settings"], m["changed"]) for m in data["mcp"]] == [
        (agent, str(path), True) for agent, path in mcp_homes.items()]
    argv = install_mod.memgit_argv()
    assert servers("claude-code", mcp_homes["claude-code"]) == {
        "github": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]},
        "memgit": {"type": "stdio", "command": argv[0], "args": [*argv[1:], "mcp"]}}
    assert servers("codex", mcp_homes["codex"]) == {"memgit": {"command": argv[0], "args": [*argv[1:], "mcp"]}}
    assert tomllib.loads(mcp_homes["codex"].read_text())["features"] == {"hooks": True}  # the rest as it was
    assert mcp_homes["codex"].read_text().startswith(CODEX_CONFIG)
    assert servers("gemini", mcp_homes["gemini"]) == {"memgit": {"command": argv[0], "args": [*argv[1:], "mcp"]}}
    gemini = mcp_homes["gemini"].read_bytes().decode()
    assert "// look and feel" in gemini and "\n" not in gemini.replace("\r\n", "")  # comments and CRLF kept
    assert jsontext.loads(gemini)["hooks"]["SessionStart"]  # beside memgit's hooks in the same file
    claude = json.loads(mcp_homes["claude-code"].read_text())
    assert claude["numStartups"] == 12 and claude["projects"] == {"/home/u/dev/pinion": {"allowedTools": []}}

    again = memgit_cli("install")
    assert again.stdout.count("memgit's MCP server is already registered in") == 3
    result = memgit_cli("uninstall", "--yes")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("removed the MCP server; the file is as it was before memgit") == 3
    assert everything(hermetic_env) == before  # byte for byte, backups gone, the skills too
    assert not (hermetic_env / ".local" / "state" / "memgit" / "installed.json").exists()


def test_the_registered_command_starts_a_server_the_sdk_client_talks_to(memgit_cli, mcp_homes, tmp_path):
    pytest.importorskip("mcp.client.stdio", reason="the MCP SDK is an optional extra: pip install 'memgit[mcp]'")
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    import os

    assert memgit_cli("install", "--agent", "codex").exit_code == 0
    entry = servers("codex", mcp_homes["codex"])["memgit"]

    async def tools() -> set[str]:
        params = StdioServerParameters(command=entry["command"], args=entry["args"], env=dict(os.environ), cwd=tmp_path)
        with open(os.devnull, "w") as quiet:
            async with stdio_client(params, errlog=quiet) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                return {t.name for t in (await session.list_tools()).tools}

    assert anyio.run(tools) == {"search", "show", "remember", "forget"}


def test_files_memgit_created_are_deleted_again(memgit_cli, hermetic_env):
    (hermetic_env / ".claude").mkdir()
    (hermetic_env / ".codex").mkdir()
    assert memgit_cli("install", "--agent", "claude-code", "--agent", "codex").exit_code == 0
    assert (hermetic_env / ".claude.json").is_file() and (hermetic_env / ".codex" / "config.toml").is_file()
    result = memgit_cli("uninstall", "--yes")
    assert result.stdout.count("memgit had created it") >= 2
    assert not (hermetic_env / ".claude.json").exists() and not (hermetic_env / ".codex" / "config.toml").exists()


def test_a_config_the_agent_rewrote_gets_only_memgits_server_parsed_out(memgit_cli, mcp_homes):
    memgit_cli("install", "--agent", "claude-code")
    path = mcp_homes["claude-code"]
    doc = json.loads(path.read_text())
    doc["numStartups"] = 13  # Claude Code rewrites its state file at every start (here: another indentation)
    path.write_text(json.dumps(doc, indent=4))
    result = memgit_cli("uninstall", "--yes", "--agent", "claude-code")
    assert "was rewritten since memgit registered its MCP server" in result.stdout
    expected = json.loads(CLAUDE_STATE)
    expected["numStartups"] = 13
    assert json.loads(path.read_text()) == expected


def test_codex_table_edited_by_hand_is_still_taken_out(memgit_cli, mcp_homes):
    memgit_cli("install", "--agent", "codex")
    path = mcp_homes["codex"]
    path.write_text(path.read_text().replace('args = ["mcp"]', 'args = ["mcp"]\nstartup_timeout_sec = 20')
                    + '\n[mcp_servers.docs]\ncommand = "docs-mcp"\n')
    memgit_cli("uninstall", "--yes", "--agent", "codex")
    assert tomllib.loads(path.read_text()) == {**tomllib.loads(CODEX_CONFIG),
                                               "mcp_servers": {"docs": {"command": "docs-mcp"}}}


def test_a_server_named_memgit_that_memgit_did_not_write_is_left_alone(memgit_cli, mcp_homes):
    path = mcp_homes["codex"]
    path.write_text(CODEX_CONFIG + '\n[mcp_servers.memgit]\ncommand = "my-own-memgit"\n')
    before = path.read_bytes()
    result = memgit_cli("install", "--agent", "codex")
    assert result.exit_code == 0 and "already has an MCP server named 'memgit' that memgit did not write" in result.stdout
    memgit_cli("uninstall", "--yes", "--agent", "codex")
    assert path.read_bytes() == before


def test_a_moved_memgit_is_registered_again_in_place(memgit_cli, mcp_homes):
    path = mcp_homes["gemini"]
    doc = jsontext.loads(path.read_text())
    doc["mcpServers"] = {"memgit": {"command": "/old/venv/bin/memgit", "args": ["mcp"]}}
    path.write_text(json.dumps(doc, indent=2))
    result = memgit_cli("install", "--agent", "gemini")
    assert "updated the MCP server" in result.stdout
    assert servers("gemini", path)["memgit"]["command"] == install_mod.memgit_argv()[0]


def test_no_mcp_and_a_missing_extra(memgit_cli, mcp_homes, monkeypatch):
    before = mcp_homes["claude-code"].read_bytes()
    assert memgit_cli("install", "--no-mcp", "--agent", "claude-code").exit_code == 0
    assert mcp_homes["claude-code"].read_bytes() == before
    monkeypatch.setitem(sys.modules, "mcp", None)  # as if the extra were not installed
    refused = memgit_cli("install", "--mcp", "--agent", "claude-code")
    assert refused.exit_code == 4 and "pip install 'memgit[mcp]'" in refused.stderr
    plain = memgit_cli("install", "--agent", "claude-code")
    assert plain.exit_code == 0 and "memgit's MCP server is not registered (optional)" in plain.stdout
    assert mcp_homes["claude-code"].read_bytes() == before


def test_the_recall_skill_is_published_for_every_agent_and_removed(memgit_cli, homes, hermetic_env):
    from memgit.verbs.install.skills import shipped

    [(text, _)] = shipped().values()
    meta = text.split("---\n")[1]
    description = next(line for line in meta.splitlines() if line.startswith("description: "))
    assert "memgit search" in description and len(description) < 500  # Codex reads at most 500 characters
    memgit_cli("install")
    folders = [hermetic_env / ".claude" / "skills", hermetic_env / ".agents" / "skills", hermetic_env / ".gemini" / "skills"]
    for folder in folders:
        assert (folder / "memgit-recall" / "SKILL.md").read_text() == text
    memgit_cli("uninstall", "--yes")
    assert not any((folder / "memgit-recall").exists() for folder in folders)
