"""Find Gemini CLI sessions: `<root>/tmp/<project>/chats/session-*.json[l]`, one entry per session."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from memgit.errors import TranscriptError
from memgit.core.model import AGENT_GEMINI
from memgit.sources.files import SessionFile

PREFIX = "session-"
SUFFIXES = (".jsonl", ".json")
HEAD = 4096  # the session id is in the first line (JSONL) or the first keys (legacy document)
_SESSION_ID = re.compile(rb'"sessionId"\s*:\s*"([^"\\]{1,200})"')


def default_root(env: Mapping[str, str]) -> Path:
    """Where Gemini CLI keeps its files: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`."""
    home = env.get("GEMINI_CLI_HOME") or env.get("HOME") or str(Path.home())
    return Path(os.path.expanduser(home)) / ".gemini"


def discover(root: Path) -> list[SessionFile]:
    """List the main sessions under `<root>/tmp/*/chats/`, one per session id.

    Subagent sessions in `chats/<parent id>/` are left out: reading the parent folds them in. One
    session can sit in two files: a legacy `.json` resumed by v0.39+ goes on in a `.jsonl` beside
    it, and v0.29 copied hash-named folders to slug-named ones. The `.jsonl` wins, then the file
    written last.

    Raises:
        TranscriptError: the `tmp` folder exists but cannot be listed.
    """
    tmp = Path(root) / "tmp"
    try:
        folders = sorted(e.name for e in os.scandir(tmp) if e.is_dir())
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as e:
        raise TranscriptError(f"cannot list {tmp}: {e.strerror}; check its permissions") from e
    chosen: dict[str, SessionFile] = {}
    for folder in folders:
        for found in _sessions(tmp / folder / "chats", folder):
            current = chosen.get(found.session_id)
            if current is None or _rank(found) > _rank(current):
                chosen[found.session_id] = found
    return sorted(chosen.values(), key=lambda s: (s.project_dir, s.path.name))


def session_id(path: Path) -> str | None:
    """The `sessionId` near the top of a session file, or None (unreadable, not there)."""
    try:
        with open(path, "rb") as f:
            head = f.read(HEAD)
    except OSError:
        return None
    match = _SESSION_ID.search(head)
    return match.group(1).decode("utf-8", errors="replace") if match else None


def _rank(file: SessionFile) -> tuple[bool, float, int]:
    return (file.path.name.endswith(".jsonl"), file.mtime, file.size)


def _sessions(chats: Path, folder: str) -> list[SessionFile]:
    try:
        entries = list(os.scandir(chats))
    except OSError:  # no chats yet, or a folder removed while we list: skip it this time
        return []
    found = []
    for entry in entries:
        name = entry.name
        if not (name.startswith(PREFIX) and name.endswith(SUFFIXES)):
            continue
        try:
            if not entry.is_file():
                continue
            st = entry.stat()
        except OSError:  # deleted between listing and stat
            continue
        path = Path(entry.path)
        sid = session_id(path) or name.split(".", 1)[0].removeprefix(PREFIX)
        found.append(SessionFile(sid, path, folder, st.st_size, st.st_mtime, AGENT_GEMINI,
                                 whole=name.endswith(".json")))
    return found
