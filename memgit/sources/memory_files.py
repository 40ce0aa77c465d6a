"""An agent's own memory on disk, as memgit imports it: a set of text files read whole, never written.

Every agent that keeps notes for itself (Claude Code's auto memory, Codex's memories folder, Gemini
CLI's memory folder and the section its `save_memory` tool kept in GEMINI.md) is offered to
memgit.verbs.import_memory as `AgentMemory` units. A unit says whose it is (`agent`), what it is
called (`source`: the copy's folder under `imported/<agent>/`), which project it belongs to (`cwd`;
None: every project), and how to read it (`read()` -> Snapshot) and cheaply tell it changed
(`stamp()`). The agents' packages know their layouts; this module reads files.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

MAX_FILE_BYTES = 256 * 1024  # an agent loads a few KB of its index; a file this big is not a note
MAX_FILES = 500  # a folder holding more is not a memory folder any more: the rest are listed as skipped


class AgentMemory(Protocol):
    agent: str
    source: str

    @property
    def cwd(self) -> str | None: ...

    def read(self) -> "Snapshot": ...

    def stamp(self) -> str | None: ...


@dataclass(frozen=True, slots=True)
class MemoryFile:
    name: str  # relative to the folder, '/'-separated
    text: str
    sha256: str  # of the bytes on disk


@dataclass(slots=True)
class Snapshot:
    """What a memory unit holds now: its text files, and what was left out and why."""

    folder: object  # the unit read
    files: list[MemoryFile] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # name -> why (binary, too large, unreadable)
    error: str = ""  # the folder itself could not be listed: nothing is known of its files

    @property
    def unreadable(self) -> dict[str, str]:
        """The files that exist but could not be read (worth a warning; a binary is not)."""
        return {n: why for n, why in self.skipped.items() if why.startswith("unreadable")}

    @property
    def digest(self) -> str:
        """One digest of every file's name and bytes, and of the names left out: it changes when they do."""
        h = hashlib.sha256()
        for f in sorted(self.files, key=lambda f: f.name):
            h.update(f"file {f.name}\0{f.sha256}\n".encode("utf-8", "surrogateescape"))
        for name in sorted(self.skipped):
            h.update(f"skipped {name}\n".encode("utf-8", "surrogateescape"))
        return h.hexdigest()


Keep = Callable[[str], bool]  # a file's relative name -> whether the unit holds it


@dataclass(frozen=True)
class FolderMemory:
    """A folder of memory files (all of them, or those `keep` names) belonging to one project or to all."""

    agent: str
    source: str
    path: Path
    project: str | None = None  # the project's directory; None: every project (global)
    keep: Keep | None = None

    @property
    def cwd(self) -> str | None:
        return self.project

    def read(self) -> Snapshot:
        return read_tree(self, self.path, self.keep)

    def stamp(self) -> str | None:
        return stamp(self.path, self.keep)


@dataclass(frozen=True)
class TextMemory:
    """One memory file cut out of a bigger file (`extract` returns the part, or "" when there is none)."""

    agent: str
    source: str
    path: Path
    name: str  # the copy's file name
    extract: Callable[[str], str]
    project: str | None = None

    @property
    def cwd(self) -> str | None:
        return self.project

    def read(self) -> Snapshot:
        snap = Snapshot(self)
        try:
            with open(self.path, "rb") as f:
                data = f.read(MAX_FILE_BYTES * 4 + 1)
        except FileNotFoundError:
            return snap  # no file, nothing remembered: a copy made earlier is removed
        except OSError as e:
            snap.skipped[self.name] = f"unreadable: {e.strerror or e}"
            return snap
        part = self.extract(data.decode("utf-8", "replace"))
        if part:
            raw = part.encode("utf-8")
            snap.files.append(MemoryFile(self.name, part, hashlib.sha256(raw).hexdigest()))
        return snap

    def stamp(self) -> str | None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return "missing"
        except OSError:
            return None
        return f"{st.st_size} {st.st_mtime_ns} {st.st_ino}"


def read_tree(unit: object, root: Path, keep: Keep | None = None) -> Snapshot:
    """Read the text files under root (those `keep` names); binaries, big files and unreadable ones
    are listed, not read.

    Hidden files and folders (editors' swap files, `.DS_Store`) and symlinks are not memory: left out
    without a word. Never raises.
    """
    snap = Snapshot(unit)
    try:
        walk = [(n, p) for n, p in _walk(root) if keep is None or p is None or keep(n)]
    except OSError as e:
        snap.error = e.strerror or str(e)
        return snap
    for name, path in walk:
        if path is None:  # a subfolder that cannot be listed: what it held is kept as it was
            snap.skipped[name] = "unreadable: cannot list the folder"
            continue
        if len(snap.files) >= MAX_FILES:
            snap.skipped[name] = f"more than {MAX_FILES} files"
            continue
        try:
            with open(path, "rb") as f:
                size = os.fstat(f.fileno()).st_size
                if size > MAX_FILE_BYTES:
                    snap.skipped[name] = f"too large ({size} bytes)"
                    continue
                data = f.read(MAX_FILE_BYTES + 1)
        except OSError as e:
            snap.skipped[name] = f"unreadable: {e.strerror or e}"
            continue
        if b"\0" in data[:8192]:
            snap.skipped[name] = "binary"
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            snap.skipped[name] = "binary"
            continue
        snap.files.append(MemoryFile(name, text, hashlib.sha256(data).hexdigest()))
    return snap


def _walk(root: Path):
    """(relative name, path) of the regular files under root, hidden ones and symlinks left out; a
    subfolder that cannot be listed comes as ("<name>/", None).

    Raises:
        OSError: root itself cannot be listed.
    """
    stack = [("", str(root))]
    while stack:
        prefix, directory = stack.pop()
        try:
            with os.scandir(directory) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError:
            if not prefix:
                raise
            yield prefix, None
            continue
        for entry in entries:
            if entry.name.startswith(".") or entry.is_symlink():
                continue
            name = prefix + entry.name
            if entry.is_dir(follow_symlinks=False):
                stack.append((name + "/", entry.path))
            elif entry.is_file(follow_symlinks=False):
                yield name, entry.path


def stamp(root: Path, keep: Keep | None = None) -> str | None:
    """A digest of the files' names, sizes and modification times: it changes when a file does, at
    the cost of a stat per file. None when the folder or a subfolder cannot be listed."""
    h = hashlib.sha256()
    try:
        for name, path in _walk(root):
            if path is None:
                return None
            if keep is not None and not keep(name):
                continue
            st = os.stat(path)
            h.update(f"{name}\0{st.st_size} {st.st_mtime_ns} {st.st_ino}\n".encode("utf-8", "surrogateescape"))
    except OSError:
        return None
    return h.hexdigest()


def is_dir(path: Path) -> bool:
    try:
        return os.path.isdir(path)
    except OSError:
        return False
