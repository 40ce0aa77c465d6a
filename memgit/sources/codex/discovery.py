"""Find Codex rollouts: live and archived, plain and compressed, one entry per thread."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from memgit.errors import TranscriptError
from memgit.core.model import AGENT_CODEX
from memgit.sources.files import ZSTD_SUFFIX, SessionFile

FOLDERS = ("sessions", "archived_sessions")  # archived: flat, moved there by `codex archive`
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)
SUFFIXES = (".jsonl", ".jsonl" + ZSTD_SUFFIX, ".json")  # .json: the TypeScript CLI (Apr–mid 2025)


def default_root(env: Mapping[str, str]) -> Path:
    """Where Codex keeps its files: `$CODEX_HOME`, else `~/.codex`."""
    if env.get("CODEX_HOME"):
        return Path(os.path.expanduser(env["CODEX_HOME"]))
    return Path(env.get("HOME") or Path.home()) / ".codex"


def discover(root: Path) -> list[SessionFile]:
    """List the rollouts under `<root>/sessions` and `<root>/archived_sessions`, one per thread.

    A plain file hides its `.zst` sibling (Codex's own rule); copies of one thread in both folders
    (an archive racing a resume) count once, the latest written winning.

    Raises:
        TranscriptError: a rollout folder exists but cannot be listed.
    """
    root = Path(root)
    chosen: dict[str, SessionFile] = {}
    for folder in FOLDERS:
        for found in _walk(root, root / folder):
            current = chosen.get(found.session_id)
            if current is None or _rank(found) > _rank(current):
                chosen[found.session_id] = found
    return sorted(chosen.values(), key=lambda s: (s.project_dir, s.path.name))


def _rank(file: SessionFile) -> tuple[bool, float, int]:
    return (not file.compressed, file.mtime, file.size)


def _walk(root: Path, top: Path) -> list[SessionFile]:
    try:
        os.scandir(top).close()
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as e:
        raise TranscriptError(f"cannot list {top}: {e.strerror}; check its permissions") from e
    found = []
    for folder, _, names in os.walk(top):  # a folder vanishing mid-walk is skipped by os.walk
        plain = {n for n in names if n.endswith(".jsonl")}
        relative = Path(folder).relative_to(root).as_posix()
        for name in names:
            if not name.startswith("rollout-") or not name.endswith(SUFFIXES):
                continue
            if name.endswith(ZSTD_SUFFIX) and name[: -len(ZSTD_SUFFIX)] in plain:
                continue
            path = Path(folder, name)
            try:
                st = path.stat()
            except OSError:  # deleted between listing and stat
                continue
            if not path.is_file():
                continue
            session_id = thread_id(name) or name.split(".", 1)[0].removeprefix("rollout-")
            found.append(SessionFile(session_id, path, relative, st.st_size, st.st_mtime, AGENT_CODEX,
                                     whole=name.endswith(".json")))
    return found


def thread_id(name: str) -> str | None:
    """The thread UUID in a rollout's file name: the last one (fork names may carry two)."""
    found = _UUID.findall(name)
    return found[-1].lower() if found else None
