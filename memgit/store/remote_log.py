"""The last push and pull to each remote, kept in `.git/memgit/remotes.json` for `memgit status`.

An automatic push or pull runs after a sync, often in the background where nobody sees its
output; its outcome is written here so that `status` (and `doctor`) can say it failed and why.
Derived: deleting it only forgets the last outcomes.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

VERSION = 1


def _path(state_dir: Path) -> Path:
    return Path(state_dir) / "remotes.json"


def read(state_dir: Path) -> dict[str, dict[str, dict]]:
    """{remote: {"push"|"pull": {"ok", "at", "message"}}}; {} when nothing was recorded."""
    try:
        data = json.loads(_path(state_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != VERSION or not isinstance(data.get("remotes"), dict):
        return {}
    return data["remotes"]


def record(state_dir: Path, remote: str, op: str, ok: bool, message: str, *, now: float | None = None) -> None:
    """Remember the outcome of one push or pull; a disk that refuses only loses the record."""
    remotes = read(state_dir)
    remotes.setdefault(remote, {})[op] = {"ok": ok, "at": time.time() if now is None else now, "message": message}
    path = _path(state_dir)
    tmp = path.with_name(f"remotes.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps({"version": VERSION, "remotes": remotes}), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass


def forget(state_dir: Path, remote: str) -> None:
    """Drop a removed remote's records."""
    remotes = read(state_dir)
    if remotes.pop(remote, None) is None:
        return
    path = _path(state_dir)
    try:
        path.write_text(json.dumps({"version": VERSION, "remotes": remotes}), encoding="utf-8")
    except OSError:
        pass
