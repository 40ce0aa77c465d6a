"""memgit's MCP server (`memgit mcp`) in each agent's MCP configuration: register it, take it out again.

| agent       | file                                   | where                         |
|-------------|----------------------------------------|-------------------------------|
| Claude Code | ~/.claude.json ($CLAUDE_CONFIG_DIR/…)  | `mcpServers.memgit` (user scope, as `claude mcp add -s user` writes it) |
| Codex       | $CODEX_HOME/config.toml (~/.codex)     | `[mcp_servers.memgit]`        |
| Gemini CLI  | ~/.gemini/settings.json                | `mcpServers.memgit`           |

Sources: Claude Code's MCP docs (code.claude.com/docs/en/mcp: user-scoped servers live in
~/.claude.json), Codex `docs/config.md` (`[mcp_servers.<name>]` command, args), Gemini CLI
`docs/tools/mcp-server.md` (`mcpServers` in settings.json; comments allowed).

As with the hooks (memgit.verbs.install.files), the entry is inserted as text, the file's bytes
before and after are recorded, and uninstall removes the snippet verbatim (the original bytes come
back), else parses the entry out. A server named `memgit` that memgit did not write is left alone.
Nothing here fails an install: a file memgit cannot read or write is a warning, and the hooks stay.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import tomllib
from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from memgit.errors import MemgitError
from memgit.verbs.install import agents as agents_mod
from memgit.verbs.install import jsontext
from memgit.verbs.install.agents import CLAUDE_CODE, CODEX
from memgit.verbs.install.files import SettingsChange, _drop_backups, _unlink, read_text, write
from memgit.verbs.install.manifest import sha256

NAME = "memgit"
EXTRA = "pip install 'memgit[mcp]'"
_TABLE = re.compile(r"""^[ \t]*\[[ \t]*mcp_servers[ \t]*\.[ \t]*(?:memgit|"memgit"|'memgit')[ \t]*(?:\.[^\]]*)?\][ \t]*(?:#.*)?$""")
_ANY_TABLE = re.compile(r"^[ \t]*\[")


def extra_installed() -> bool:
    """True when the MCP SDK `memgit mcp` needs (mcp 2) is installed beside this memgit (not imported: slow)."""
    if importlib.util.find_spec("mcp") is None:
        return False
    try:
        return int(version("mcp").split(".")[0]) >= 2
    except (PackageNotFoundError, ValueError):
        return False


def config_path(agent: str, env: Mapping[str, str], claude_root: Path | None = None) -> Path:
    """The file the agent reads its user-wide MCP servers from."""
    if agent == CLAUDE_CODE:
        base = env.get("CLAUDE_CONFIG_DIR") or env.get("HOME") or str(Path.home())
        return Path(os.path.expanduser(base)) / ".claude.json"
    if agent == CODEX:
        return agents_mod.home(CODEX, env) / "config.toml"
    return agents_mod.home(agent, env, claude_root) / "settings.json"


def entry(agent: str, argv: list[str]) -> dict:
    """The server's entry as the agent reads it."""
    server = {"command": argv[0], "args": list(argv[1:])}
    return {"type": "stdio", **server} if agent == CLAUDE_CODE else server


def is_ours(value: object) -> bool:
    """True for an entry memgit wrote: it runs `memgit mcp` (or `python -m memgit.entry mcp`)."""
    if not isinstance(value, dict) or not isinstance(value.get("command"), str):
        return False
    args = value.get("args")
    if not isinstance(args, list) or args[-1:] != ["mcp"]:
        return False
    return Path(value["command"]).name in ("memgit", "memgit.exe") or "memgit.entry" in args


# ---- reading and changing one file, JSON or TOML --------------------------------------------------


def _servers(agent: str, text: str, where: Path) -> dict:
    """The file's servers table ({} when none).

    Raises:
        MemgitError: the file is not what the agent reads, or its servers table is not a table.
    """
    if not text.strip():
        return {}
    try:
        doc = tomllib.loads(text) if agent == CODEX else jsontext.loads(text)
    except ValueError as e:
        raise MemgitError(f"{where} cannot be read ({e}); fix it, then run `memgit install` again") from e
    servers = doc.get(_key(agent), {}) if isinstance(doc, dict) else None
    if not isinstance(servers, dict):
        raise MemgitError(f"`{_key(agent)}` in {where} is not a table of servers; memgit's MCP server was not added")
    return servers


def _key(agent: str) -> str:
    return "mcp_servers" if agent == CODEX else "mcpServers"


def _insert(agent: str, text: str, value: dict) -> tuple[str, str]:
    """The text with memgit's entry appended, and the snippet inserted."""
    if agent == CODEX:
        nl = "\r\n" if "\r\n" in text else "\n"
        lead = ("" if not text or text.endswith("\n") else nl) + (nl if text.strip() else "")
        body = [f"[{_key(agent)}.{NAME}]"] + [f"{k} = {json.dumps(v, ensure_ascii=False)}" for k, v in value.items()]
        snippet = lead + nl.join(body) + nl
        return text + snippet, snippet
    if not text.strip():
        snippet = json.dumps({_key(agent): {NAME: value}}, indent=2, ensure_ascii=False) + "\n"
        return text + snippet, snippet
    root = jsontext.scan(text)
    holder = root.member(_key(agent))
    at, snippet = (jsontext.insertion(text, root, {NAME: value}, key=_key(agent)) if holder is None
                   else jsontext.insertion(text, holder, value, key=NAME))
    return jsontext.insert(text, at, snippet), snippet


def _parsed_out(agent: str, text: str) -> str | None:
    """The text without memgit's entry, found by parsing; None when it cannot be taken out safely."""
    if agent != CODEX:
        doc = jsontext.loads(text)
        del doc[_key(agent)][NAME]
        if not doc[_key(agent)]:
            del doc[_key(agent)]
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    kept, inside = [], False
    for line in text.splitlines(keepends=True):
        if _TABLE.match(line):
            inside = True
        elif inside and _ANY_TABLE.match(line):
            inside = False
        if not inside:
            kept.append(line)
    new = "".join(kept)
    try:
        return new if NAME not in _servers(agent, new, Path("config.toml")) else None
    except MemgitError:
        return None


def _document(agent: str, text: str) -> dict:
    return (tomllib.loads(text) if agent == CODEX else jsontext.loads(text)) if text.strip() else {}


def _only_memgit_gone(agent: str, text: str, stripped: str) -> bool:
    """True when `stripped` reads as `text` without memgit's server and nothing else changed."""
    try:
        before, after = _document(agent, text), _document(agent, stripped)
    except ValueError:
        return False
    servers = dict(before.get(_key(agent), {}))
    if not is_ours(servers.pop(NAME, None)):
        return False
    expected = {k: v for k, v in before.items() if k != _key(agent)} | ({_key(agent): servers} if servers else {})
    return {k: v for k, v in after.items() if not (k == _key(agent) and v == {})} == expected


def register(agent: str, path: Path, argv: list[str], record: dict | None, *, dry_run: bool,
             now: float) -> tuple[SettingsChange, dict | None]:
    """Add memgit's server to the agent's MCP config; return what changed and the file's manifest record.

    Raises:
        MemgitError: the file cannot be read as the agent reads it, or cannot be written.
    """
    result = SettingsChange(str(path), "install", agent, dry_run=dry_run, command=" ".join(argv))
    before = read_text(path)
    text = before or ""
    want = entry(agent, argv)
    current = _servers(agent, text, path).get(NAME)
    if current == want:
        return result, record
    if current is not None and not is_ours(current):
        result.warnings.append(f"{path} already has an MCP server named {NAME!r} that memgit did not write; left alone")
        return result, record
    inserts = list(record["inserts"]) if record else []
    if current is not None:  # an older memgit entry (memgit moved): out first, then the current one
        stripped = jsontext.remove(text, inserts) if inserts else None
        text, inserts = (stripped, []) if stripped is not None else (_parsed_out(agent, text), [])
        if text is None:
            raise MemgitError(f"cannot update memgit's MCP server in {path}; remove [mcp_servers.memgit] by hand")
    new, snippet = _insert(agent, text, want)
    if _servers(agent, new, path).get(NAME) != want:  # e.g. an inline `mcp_servers = {...}` in TOML
        raise MemgitError(f"cannot add memgit's MCP server to {path} without rewriting it; add it by hand: "
                          f"{json.dumps(want)}")
    result.changes.append(f"{'updated' if current is not None else 'registered'} the MCP server `{' '.join(argv)}`")
    keep = ("existed", "original_sha256", "backups")
    new_record = {"agent": agent, "existed": before is not None,
                  "original_sha256": sha256(before.encode()) if before is not None else None,
                  **({k: record[k] for k in keep if k in record} if record else {}),
                  "inserts": inserts + [snippet], "installed_sha256": sha256(new.encode())}
    if not dry_run:
        result.backup = write(path, new, now=now, backup=before is not None)
        new_record["backups"] = new_record.get("backups", []) + ([result.backup] if result.backup else [])
    return result, new_record


def unregister(agent: str, path: Path, record: dict | None, *, dry_run: bool, now: float) -> SettingsChange:
    """Take memgit's server out of the agent's MCP config, restoring its original bytes where it can.

    Raises:
        MemgitError: the file must be parsed and cannot be, or it cannot be written or deleted.
    """
    result = SettingsChange(str(path), "uninstall", agent, dry_run=dry_run)
    text = read_text(path)
    if text is None:
        return result
    stripped = jsontext.remove(text, record["inserts"]) if record else None
    if stripped is not None and not _only_memgit_gone(agent, text, stripped):
        stripped = None  # e.g. a key a person added under memgit's TOML table would fall to the table above
    if stripped is not None:
        if not record["existed"] and not stripped.strip() and sha256(text.encode()) == record["installed_sha256"]:
            result.restored, result.changes = "removed", [f"deleted {path}: memgit had created it"]
            if not dry_run:
                _unlink(path)
            return result
        new = stripped
        result.restored = "original" if sha256(new.encode()) == record.get("original_sha256") else "entries-only"
        if result.restored == "entries-only":
            result.warnings.append(f"{path} changed since memgit registered its MCP server: removed only memgit's "
                                   "entry, kept the rest as it is now")
    elif is_ours(_servers(agent, text, path).get(NAME)):
        new = _parsed_out(agent, text)
        if new is None:
            result.warnings.append(f"cannot take memgit's MCP server out of {path}; remove [mcp_servers.memgit] by hand")
            return result
        result.restored = "reparsed"
        if record and agent != CODEX:
            result.warnings.append(f"{path} was rewritten since memgit registered its MCP server: removed memgit's "
                                   "entry from the parsed file; its indentation (and any comments) may differ")
    else:
        return result
    result.changes = ["removed the MCP server"]
    if not dry_run:
        result.backup = write(path, new, now=now, backup=result.restored != "original")
        if result.restored == "original":
            _drop_backups(record, record.get("original_sha256"))
    return result
