"""Gemini CLI's own memory: what memgit imports, and whether Gemini loads it into its sessions.

Two places (transcript-formats §4.6): since "Memory v2" (v0.44) the agent edits a private project
memory `<root>/tmp/<id>/memory/` (`MEMORY.md` and sibling files), on that project's branch, its
folder mapped to the project as its sessions are (memgit.sources.gemini.projects); before, the
`save_memory` tool appended `- <fact>` lines under a `## Gemini Added Memories` heading of the
global `<root>/GEMINI.md` (packages/core/src/tools/memoryTool.ts) — only that section is imported,
the rest of GEMINI.md is the person's own instructions. Read, never written.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from memgit.core.model import AGENT_GEMINI
from memgit.sources.gemini import projects
from memgit.sources.memory_files import FolderMemory, TextMemory, is_dir

MEMORY_DIR = "memory"
INDEX = "MEMORY.md"
GLOBAL_FILE = "GEMINI.md"
SECTION = "## Gemini Added Memories"
_HEADING = re.compile(r"^#{1,2}\s")


def discover(root: Path, home: Path | None = None) -> list[FolderMemory | TextMemory]:
    """Each project's memory folder, then the global GEMINI.md's added-memories section."""
    units: list[FolderMemory | TextMemory] = []
    try:
        folders = sorted(os.listdir(root / "tmp"))
    except OSError:
        folders = []
    for name in folders:
        path = root / "tmp" / name / MEMORY_DIR
        if is_dir(path):
            units.append(FolderMemory(AGENT_GEMINI, name, path, project_of(root, name)))
    units.append(TextMemory(AGENT_GEMINI, "global", root / GLOBAL_FILE, GLOBAL_FILE, added_memories))
    return units


def project_of(root: Path, folder: str) -> str | None:
    """The project a `tmp/<folder>` stands for, found as for its sessions: the marker, the registry,
    then a session's recorded project (a hash folder's sessions carry the hash)."""
    found = projects.project_root(root, folder, folder)
    if found:
        return found
    from memgit.sources.gemini.reader import peek_cwd

    try:
        chats = sorted((root / "tmp" / folder / "chats").glob("session-*.json*"))
    except OSError:
        chats = []
    for chat in chats[:5]:
        if cwd := peek_cwd(chat):
            return cwd
    return None


def added_memories(text: str) -> str:
    """The `## Gemini Added Memories` section of GEMINI.md (heading and items), or "" when it has none."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == SECTION:
            end = next((j for j in range(i + 1, len(lines)) if _HEADING.match(lines[j])), len(lines))
            body = "\n".join(lines[i + 1:end]).strip()
            return f"{SECTION}\n\n{body}\n" if body else ""
    return ""


def injected(root: Path) -> list[str]:
    """Where Gemini CLI loads its own memory into every session (the files that exist)."""
    found = []
    path = root / GLOBAL_FILE
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""  # no GEMINI.md: nothing loaded from it
    if added_memories(text):
        found.append(f"the {SECTION[3:]} section of {path}")
    for unit in discover(root):
        if isinstance(unit, FolderMemory) and os.path.isfile(unit.path / INDEX):
            found.append(str(unit.path / INDEX))
    return found
