"""Claude Code's own auto memory: where its folders are, what they hold, and whether it is switched on.

Claude Code writes notes for itself under `<claude root>/projects/<project>/memory/`: `MEMORY.md`
(an index, loaded into every session) and one topic file per memory (transcript-formats §6). The
`<project>` folder is the `-`-encoded path of the git repository's root, not of a session's cwd,
and a user may move the whole thing with `autoMemoryDirectory`. This module is the only one that
knows that layout and the switches; it reads, never writes (Claude Code owns the folder).
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Mapping

from memgit.core.model import AGENT_CLAUDE_CODE
from memgit.sources.memory_files import Snapshot, read_tree, stamp

MEMORY_DIR = "memory"
INDEX = "MEMORY.md"
SETTINGS = "settings.json"
DIRECTORY_SETTING = "autoMemoryDirectory"
ENABLED_SETTING = "autoMemoryEnabled"
DISABLE_ENV = "CLAUDE_CODE_DISABLE_AUTO_MEMORY"  # 1 turns it off, 0 forces it on: it outranks the settings
PEEKS = 5  # transcripts tried for the folder's cwd (one with no cwd yet is skipped)
MAX_DECODE_STEPS = 2000  # directory listings a decoded guess may cost


@dataclass(frozen=True)
class MemoryFolder:
    """One memory folder and the working directory it belongs to (its scope hint)."""

    source: str  # the project folder's name under projects/, or the configured directory's path
    path: Path
    project_dir: Path | None  # the folder under projects/ it sits in; None for autoMemoryDirectory
    agent = AGENT_CLAUDE_CODE

    @cached_property
    def cwd(self) -> str | None:
        """The working directory it belongs to; None when shared by every project (autoMemoryDirectory)
        or when its project is gone. Looked up on first use: it peeks at a transcript."""
        return project_cwd(self.project_dir) if self.project_dir is not None else None

    def read(self) -> Snapshot:
        return read_folder(self)

    def stamp(self) -> str | None:
        return fingerprint(self)


# ---- settings and switches -------------------------------------------------------------------


def read_settings(path: Path) -> dict:
    """A Claude Code settings file as a dict; {} when missing or unreadable (these are hints, not orders)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def configured_directory(settings: Mapping, home: Path) -> Path | None:
    """The folder `autoMemoryDirectory` names (absolute or `~/...`); None when unset or relative."""
    value = settings.get(DIRECTORY_SETTING)
    if not isinstance(value, str) or not value.strip():
        return None
    value = value.strip()
    if value == "~" or value.startswith("~/"):
        value = str(home) + value[1:]
    return Path(value) if os.path.isabs(value) else None


@dataclass(frozen=True, slots=True)
class AutoMemory:
    """Whether Claude Code reads and writes its auto memory for a project, and what decided it."""

    on: bool
    why: str  # e.g. "on by default", "autoMemoryEnabled: false in /p/.claude/settings.json"
    switch: str = ""  # what to change to turn it off: the settings file or the variable that decided it

    @property
    def advice(self) -> str:
        if self.switch == DISABLE_ENV:
            return f"set {DISABLE_ENV}=1 where Claude Code runs (it is 0 now, which outranks the settings)"
        return f'set "{ENABLED_SETTING}": false in {self.switch}'


def auto_memory(env: Mapping[str, str], user_settings: Path, project_root: str | None) -> AutoMemory:
    """Tell whether auto memory is on: the environment variable, then local, project, user settings.

    Managed (policy) settings are not read: memgit does not know where an organisation puts them.
    """
    forced = env.get(DISABLE_ENV, "").strip()
    if forced in ("1", "true"):
        return AutoMemory(False, f"{DISABLE_ENV}={forced}")
    if forced in ("0", "false"):
        return AutoMemory(True, f"{DISABLE_ENV}={forced}", DISABLE_ENV)
    files = [user_settings]
    if project_root:
        files = [Path(project_root, ".claude", "settings.local.json"), Path(project_root, ".claude", SETTINGS),
                 user_settings]
    for path in files:
        value = read_settings(path).get(ENABLED_SETTING)
        if isinstance(value, bool):
            return AutoMemory(value, f"{ENABLED_SETTING}: {str(value).lower()} in {path}", str(path))
    return AutoMemory(True, "on by default", str(user_settings))


# ---- finding the folders ---------------------------------------------------------------------


def discover(claude_root: Path, home: Path, settings: Mapping | None = None) -> list[MemoryFolder]:
    """Every memory folder: `<root>/projects/*/memory/`, and the `autoMemoryDirectory` when set.

    Folders that cannot be listed are left out here (their transcripts' listing reports them).
    """
    settings = read_settings(claude_root / SETTINGS) if settings is None else settings
    found = []
    projects = claude_root / "projects"
    try:
        names = sorted(os.listdir(projects))
    except OSError:
        names = []
    for name in names:
        folder = projects / name / MEMORY_DIR
        if _is_dir(folder):
            found.append(MemoryFolder(name, folder, projects / name))
    custom = configured_directory(settings, home)
    if custom is not None and _is_dir(custom) and all(f.path != custom for f in found):
        found.append(MemoryFolder(str(custom), custom, None))  # one folder for every project: global
    return found


def _is_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except OSError:
        return False


def project_cwd(project_dir: Path) -> str | None:
    """The working directory a project folder stands for: a transcript's recorded cwd, else the
    existing directory whose encoding is the folder's name (the encoding is lossy: never guessed blind)."""
    from memgit.sources.claude_code.reader import peek_cwd  # the record parser: not for a sync that only lists folders

    try:  # every main transcript here was started in the same directory: the first few will do
        with os.scandir(project_dir) as listing:
            transcripts = sorted(e.path for e in listing if e.name.endswith(".jsonl") and not e.name.startswith("agent-"))
    except OSError:
        transcripts = []
    for path in transcripts[:PEEKS]:
        cwd = peek_cwd(Path(path))
        if cwd and os.path.isabs(cwd):
            return cwd
    return decode_existing(project_dir.name)


def decode_existing(encoded: str) -> str | None:
    """The existing absolute directory whose `-`-encoding is `encoded`, found by walking down from `/`."""
    if not encoded.startswith("-"):
        return None
    from memgit.sources.claude_code.synthetic import encode_project_dir

    steps = [0]

    def walk(directory: str, rest: str) -> str | None:
        if not rest:
            return directory
        steps[0] += 1
        if steps[0] > MAX_DECODE_STEPS:
            return None
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            return None
        for name in names:
            part = encode_project_dir(name)
            if rest == part or rest.startswith(part + "-"):
                child = os.path.join(directory, name)
                if os.path.isdir(child) and (hit := walk(child, rest[len(part) + 1:])):
                    return hit
        return None

    return walk(os.sep, encoded[1:])


# ---- reading one folder ----------------------------------------------------------------------


def read_folder(folder: MemoryFolder) -> Snapshot:
    """Read a memory folder's text files (memgit.sources.memory_files.read_tree). Never raises."""
    return read_tree(folder, folder.path)


def fingerprint(folder: MemoryFolder) -> str | None:
    """A digest of the folder's file names, sizes and modification times (memgit.sources.memory_files.stamp)."""
    return stamp(folder.path)


def index_lines(snapshot: Snapshot) -> int:
    """Lines of the folder's MEMORY.md (0 when it has none): what Claude Code loads into each session."""
    for f in snapshot.files:
        if f.name == INDEX:
            return len(f.text.splitlines())
    return 0


def has_index(folder: MemoryFolder) -> bool:
    return os.path.isfile(folder.path / INDEX)
