"""`memgit mcp` as an agent runs it: a subprocess on stdio, driven by the official MCP Python SDK's client.

The repository is made by the real `memgit sync` (tests.integration.test_hooks' world); every write a
tool makes is checked with the git CLI.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp.client.stdio", reason="the MCP SDK is an optional extra: pip install 'memgit[mcp]'")

import anyio  # noqa: E402  (the SDK's own dependency)
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

from tests.conftest import ROOT, fsck, git  # noqa: E402
from tests.integration.test_hooks import PINNED_MARK, world  # noqa: E402,F401 (world: a fixture)

TOOLS = {"search", "show", "remember", "forget"}


def server(cwd: Path) -> StdioServerParameters:
    """`memgit mcp` as the agents' configs start it, in the project's folder, with this test's HOME."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return StdioServerParameters(command=sys.executable, args=["-m", "memgit.entry", "mcp"], env=env, cwd=cwd)


def talk(cwd: Path, script) -> object:
    """Start the server, initialize a client session, run `script(session)`, and close it all again."""

    async def main():
        with open(os.devnull, "w") as quiet:  # the server's log lines on stderr
            async with stdio_client(server(cwd), errlog=quiet) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return await script(session)

    return anyio.run(main)


def text_of(result) -> str:
    return "\n".join(c.text for c in result.content if c.type == "text")


def data_of(result) -> dict:
    assert not result.is_error, text_of(result)
    return result.structured_content if result.structured_content is not None else json.loads(text_of(result))


def test_the_tools_show_remember_forget_and_a_failure_over_stdio(world, memory_path):
    note = git(memory_path, "ls-tree", "-r", "--name-only", "projects/pinion", "sessions").split()[0]

    async def script(session):
        listed = await session.list_tools()
        found = await session.call_tool("search", {"query": "uv run pytest"})
        typed = await session.call_tool("search", {"query": "emoji", "type": "preference", "limit": 3})
        unsearchable = await session.call_tool("search", {"query": "?!"})
        of_note = [h for h in data_of(found)["hits"] if h["session"]]
        by_session = await session.call_tool("show", {"what": of_note[0]["session"]})
        shown = await session.call_tool("show", {"what": f"projects/pinion:{note}"})
        pinned = await session.call_tool("show", {"what": "main:notes/2026-11-20-fridays.md"})
        missing = await session.call_tool("show", {"what": "no-such-session-0000"})
        remembered = await session.call_tool("remember", {"text": "The CI image pins Python 3.12", "type": "fact"})
        listing = await session.call_tool("forget", {"target": "emoji"})
        heads_between = git(memory_path, "rev-parse", "projects/pinion")
        forgotten = await session.call_tool("forget", {"target": "emoji", "confirm": True})
        after_error = await session.call_tool("show", {"what": "main:notes/2026-11-20-fridays.md"})
        return (listed, found, typed, unsearchable, by_session, shown, pinned, missing, remembered, listing,
                heads_between, forgotten, after_error)

    (listed, found, typed, unsearchable, by_session, shown, pinned, missing, remembered, listing, heads_between,
     forgotten, after_error) = talk(world, script)
    assert {t.name for t in listed.tools} == TOOLS
    forget_tool = next(t for t in listed.tools if t.name == "forget")
    assert forget_tool.annotations.destructive_hint and "confirm" in forget_tool.input_schema["properties"]

    # search: the synced learning, its project, its note and session, the match marked
    hits = data_of(found)["hits"]
    assert hits and all(h["branch"] == "projects/pinion" and h["project"] == "pinion" for h in hits)
    learning = next(h for h in hits if h["path"] == note)
    assert "[[" in learning["snippet"] and "pytest" in learning["snippet"].lower()
    assert learning["session"].startswith("claude-code/")
    assert {h["type"] for h in data_of(typed)["hits"]} == {"preference"}
    assert "emoji" in data_of(typed)["hits"][0]["text"].lower()
    assert unsearchable.is_error and "nothing to search for" in text_of(unsearchable)
    assert not by_session.is_error and "uv run pytest" in text_of(by_session)  # show opens what a hit names

    text = text_of(shown)
    assert not shown.is_error and f"projects/pinion:{note}" in text and "## Learnings" in text
    assert PINNED_MARK in text_of(pinned)

    assert missing.is_error and "no session or commit matches 'no-such-session-0000'" in text_of(missing)
    assert not after_error.is_error  # a failed call does not stop the server

    # remember: one commit on the cwd's project, a pinned note holding the words
    done = data_of(remembered)
    assert done["branch"] == "projects/pinion" and done["path"].startswith("notes/")
    subject = git(memory_path, "log", "-1", "--format=%s", "projects/pinion", "--", done["path"]).strip()
    assert subject == "remember(pinion): The CI image pins Python 3.12" == done["subject"]
    assert "The CI image pins Python 3.12" in git(memory_path, "show", f"projects/pinion:{done['path']}")

    # forget: a listing that commits nothing, then exactly that listing committed
    plan = data_of(listing)
    assert plan["done"] is False and plan["how"] == "query"
    assert any("emoji" in line for d in plan["drops"] for line in d["lines"])
    assert heads_between == done["sha"] + "\n"  # listing wrote nothing
    gone = data_of(forgotten)
    assert gone["done"] is True and gone["drops"] == plan["drops"]
    log = git(memory_path, "log", "--format=%s", "projects/pinion")
    assert log.splitlines()[0].startswith("consolidate(") or "forget(pinion): learnings matching emoji" in log
    assert "forget(pinion): learnings matching emoji" in log
    assert "emoji" not in git(memory_path, "show", f"projects/pinion:{note}").lower()
    fsck(memory_path)


def test_no_repository_is_a_tool_error_naming_the_fix(tmp_path):
    async def script(session):
        return await session.call_tool("remember", {"text": "anything"})

    result = talk(tmp_path, script)
    assert result.is_error and "no memory repository at" in text_of(result) and "memgit init" in text_of(result)


def test_without_the_extra_memgit_mcp_says_how_to_get_it(memgit_cli, monkeypatch):
    for name in [n for n in sys.modules if n == "mcp" or n.startswith("mcp.")] + ["mcp"]:
        monkeypatch.setitem(sys.modules, name, None)  # as if the SDK were not installed: importing it fails
    result = memgit_cli("mcp")
    assert result.exit_code == 4
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1
    assert "pip install 'memgit[mcp]'" in result.stderr and result.stdout == ""
