"""`memgit mcp`: the stdio MCP server the agents call (memgit.mcp.server; needs the `mcp` extra)."""

from __future__ import annotations

import importlib

import click

from memgit.cli.app import cli, repo_option
from memgit.errors import ConfigError

NEEDS_EXTRA = ("the MCP server needs the MCP SDK, an optional extra: pip install 'memgit[mcp]' "
               "(or: pipx inject memgit mcp), then run `memgit install` to register it with the agents")


def available() -> bool:
    """True when the MCP SDK this server is written for (mcp 2) imports; the server imports it next anyway."""
    try:
        importlib.import_module("mcp.server.mcpserver")
    except ImportError:
        return False
    return True


@cli.command("mcp")
@repo_option
def mcp_command(repo_path) -> None:
    """Serve search, show, remember and forget to an agent over stdio (Model Context Protocol).

    An agent starts it; `memgit install` registers it with Claude Code, Codex and Gemini CLI.

    Example: memgit mcp   # speaks JSON-RPC on stdin/stdout until the agent closes it
    """
    if not available():
        raise ConfigError(NEEDS_EXTRA)
    from memgit.mcp.server import serve

    serve(repo_path)
