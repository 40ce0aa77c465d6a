"""Codex's own memories (`$CODEX_HOME/memories/`): what memgit imports, and whether Codex injects them.

Codex's memory pipeline (openai/codex `codex-rs/core/src/memories/`, transcript-formats §3.9) writes
`MEMORY.md` (a handbook grepped on demand), `memory_summary.md` (injected into every prompt),
`raw_memories.md`, `rollout_summaries/<stem>.md` (one per thread) and `skills/<name>/SKILL.md`.
The folder is global; a rollout summary names its thread's project in its header
(`thread_id:`, `updated_at:`, `rollout_path:`, `cwd:`, `git_branch:`, a blank line, the summary), so
each such file goes to that project and the rest to every project. Read, never written.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from memgit.core.model import AGENT_CODEX
from memgit.sources.memory_files import FolderMemory, is_dir

MEMORY_DIR = "memories"
SUMMARIES = "rollout_summaries/"
INJECTED = "memory_summary.md"  # what Codex puts into every prompt when memories are on
HEADER_BYTES = 4096  # a summary's header lines come first
_CWD = re.compile(r"^cwd: (.+)$")


def discover(root: Path, home: Path | None = None) -> list[FolderMemory]:
    """The memories folder as units: the files naming no project (global), then one per project named."""
    folder = root / MEMORY_DIR
    if not is_dir(folder):
        return []
    by_project: dict[str, set[str]] = {}
    try:
        names = sorted(os.listdir(folder / SUMMARIES))
    except OSError:
        names = []
    for name in names:
        cwd = summary_cwd(folder / SUMMARIES / name)
        if cwd:
            by_project.setdefault(cwd, set()).add(SUMMARIES + name)
    named = set().union(*by_project.values()) if by_project else set()
    units = [FolderMemory(AGENT_CODEX, MEMORY_DIR, folder, None, keep=lambda n: n not in named)]
    for cwd, files in sorted(by_project.items()):
        units.append(FolderMemory(AGENT_CODEX, MEMORY_DIR, folder, cwd, keep=frozenset(files).__contains__))
    return units


def summary_cwd(path: Path) -> str | None:
    """The absolute `cwd:` a rollout summary's header names; None when it names none."""
    try:
        with open(path, "rb") as f:
            head = f.read(HEADER_BYTES).decode("utf-8", "replace")
    except OSError:
        return None
    for line in head.splitlines():
        if not line.strip():
            break  # the header ends at the first blank line
        m = _CWD.match(line.strip())
        if m and os.path.isabs(m.group(1).strip()):
            return m.group(1).strip()
    return None


def injected(root: Path) -> list[str]:
    """Where Codex puts its own memory into every prompt: its summary, when memories are on ([features]
    memories = true, `use_memories` not false) and a summary was written; else nothing."""
    summary = root / MEMORY_DIR / INJECTED
    if not summary.is_file():
        return []
    import tomllib  # only here: listing the memory folders (every sync) never reads Codex's config

    try:
        config = tomllib.loads((root / "config.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []  # no config: memories are off by default
    features, memories = config.get("features"), config.get("memories")
    if not (isinstance(features, dict) and features.get("memories") is True):
        return []
    if isinstance(memories, dict) and memories.get("use_memories") is False:
        return []
    return [f"{summary} ([features] memories = true in {root / 'config.toml'})"]
