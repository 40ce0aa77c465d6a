"""Which project a Gemini CLI session belongs to: its folder under `tmp/` mapped back to a path.

Gemini names the folder by a slug of the project root (v0.29+) or by the SHA-256 of its path
(before), and records no cwd in the session. The path is recovered, in order of trust, from:
`tmp/<folder>/.project_root` (Gemini's own ownership marker), the `projects.json` registry
(`{"projects": {path: slug}}`), and, for every version, the session's `projectHash`
(`sha256(project root)`): candidate paths (registry keys, workspace directories, absolute paths
in tool calls and results) and their parents are hashed until one matches. The slug is never
decoded (collisions get `-1`, `-2`…). None when nothing matches: the caller falls back to what
the session says.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

ROOT_MARKER = ".project_root"
REGISTRY = "projects.json"
MAX_CANDIDATES = 400  # distinct paths tried against the hash (each with its parents)
_HASH = re.compile(r"[0-9a-f]{64}")
_POSIX_PATH = re.compile(r"(?<![\w.~/-])(/(?:[\w.@+~-]+/)*[\w.@+~-]+)")
_WINDOWS_PATH = re.compile(r"\b([A-Za-z]:\\(?:[^\\\s:*?\"<>|]+\\)*[^\\\s:*?\"<>|]+)")


def layout(path: Path) -> tuple[Path, str] | None:
    """(Gemini's root, the project folder) of `<root>/tmp/<folder>/chats/[<parent>/]<file>`, or None."""
    parents = path.parents
    for depth in (1, 2):  # a main session, or a subagent's under chats/<parent id>/
        if len(parents) > depth + 2 and parents[depth - 1].name == "chats" and parents[depth + 1].name == "tmp":
            return parents[depth + 2], parents[depth].name
    return None


def project_root(root: Path | None, folder: str | None, project_hash: Any,
                 candidates: Iterable[str] = ()) -> str | None:
    """The project path of a session folder, or None when it cannot be recovered."""
    registry: dict[str, str] = {}
    if root is not None:
        if folder:
            marker = _read_text(root / "tmp" / folder / ROOT_MARKER)
            if marker:
                return marker
        registry = _registry(root / REGISTRY)
        if folder:
            for path, slug in registry.items():
                if slug == folder:
                    return path
    if not (isinstance(project_hash, str) and _HASH.fullmatch(project_hash)):
        return None
    return match_hash(project_hash, [*registry, *candidates])


def match_hash(project_hash: str, candidates: Iterable[str]) -> str | None:
    """The first candidate path, or parent of one, whose SHA-256 is `project_hash`."""
    tried: set[str] = set()
    for count, candidate in enumerate(dict.fromkeys(candidates)):
        if count >= MAX_CANDIDATES:
            break
        pure = PureWindowsPath(candidate) if re.match(r"[A-Za-z]:\\", candidate) else PurePosixPath(candidate)
        if not pure.is_absolute():
            continue
        for path in (pure, *pure.parents):
            text = str(path)
            if text in tried:
                break  # its parents were tried with it
            tried.add(text)
            if hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest() == project_hash:
                return text
    return None


def candidate_paths(meta: dict[str, Any], messages: Iterable[dict[str, Any]], contexts: Iterable[str]) -> list[str]:
    """Absolute paths a session mentions: workspace directories first, then tool arguments and results."""
    found: list[str] = []
    directories = meta.get("directories")
    if isinstance(directories, list):
        found += [d for d in directories if isinstance(d, str)]
    for text in contexts:
        found += _paths_in(text)
    for message in messages:
        calls = message.get("toolCalls")
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict):
                found += _paths_in(_flatten(call.get("args")))
                found += _paths_in(_flatten(call.get("result")))
        if len(found) > 4 * MAX_CANDIDATES:
            break
    return found


def _paths_in(text: str) -> list[str]:
    if not text:
        return []
    return _POSIX_PATH.findall(text[:200_000]) + _WINDOWS_PATH.findall(text[:200_000])


def _flatten(value: Any, depth: int = 0) -> str:
    if isinstance(value, str):
        return value
    if depth > 8:
        return ""
    if isinstance(value, dict):
        return "\n".join(_flatten(v, depth + 1) for v in value.values())
    if isinstance(value, list):
        return "\n".join(_flatten(v, depth + 1) for v in value)
    return ""


def _read_text(path: Path) -> str | None:
    try:
        with open(path, "rb") as f:
            text = f.read(4096).decode("utf-8", errors="replace").strip()
    except OSError:  # no marker (older versions, hash folders): try the next source
        return None
    return text if text and "\n" not in text else None


def _registry(path: Path) -> dict[str, str]:
    try:
        with open(path, "rb") as f:
            data = json.loads(f.read(1 << 22))
    except (OSError, ValueError, RecursionError):  # absent (before v0.29) or being rewritten
        return {}
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        return {}
    return {k: v for k, v in projects.items() if isinstance(k, str) and isinstance(v, str)}
