"""What memgit added where: `$XDG_STATE_HOME/memgit/installed.json` (default ~/.local/state/memgit).

For each file install changed: whether it existed, the sha256 of its bytes before memgit's first
change and after its last one, and the snippets of text memgit inserted (uninstall removes them
verbatim). For each agent whose skills memgit publishes: the folder, and per published skill the
sha256 of what memgit wrote (a copy a person changed is theirs, and left alone). For each agent's
MCP config memgit registered its server in (`mcp`): the same record as for a hooks file. Losing this file
loses only the byte-for-byte promise: uninstall then removes memgit's entries by parsing.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path

from memgit.errors import MemgitError

VERSION = 1


def path(env: Mapping[str, str]) -> Path:
    state = env.get("XDG_STATE_HOME") or os.path.join(env.get("HOME") or str(Path.home()), ".local", "state")
    return Path(os.path.expanduser(state)) / "memgit" / "installed.json"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def load(env: Mapping[str, str]) -> dict:
    """The manifest; an empty one when there is none or it cannot be read (it only adds precision)."""
    try:
        data = json.loads(path(env).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"version": VERSION, "files": {}, "skills": {}, "mcp": {}}
    if not isinstance(data, dict):
        data = {}
    data.setdefault("version", VERSION)
    for key in ("files", "skills", "mcp"):
        if not isinstance(data.get(key), dict):
            data[key] = {}
    return data


def save(env: Mapping[str, str], data: dict) -> None:
    """Write the manifest atomically; drop it when it records nothing.

    Raises:
        MemgitError: it cannot be written.
    """
    target = path(env)
    try:
        if not data["files"] and not data["skills"] and not data.get("mcp"):
            target.unlink(missing_ok=True)
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(tmp, target)
    except OSError as e:
        raise MemgitError(f"cannot write {target}: {e.strerror or e}") from e


def key(file: Path) -> str:
    return os.path.realpath(file)
