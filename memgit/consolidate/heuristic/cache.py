"""The consolidation cache: each scope's `Memory` in a database file under .git/memgit/memory/, so
that a sync which adds one note reads one note and compares its learnings with a handful of others,
not with those of 10,000 notes.

A file records which branch it belongs to, the version of its schema and rules, and the `sessions/`
tree it reflects. Like every cache under .git/memgit/, deleting it changes nothing but speed: a
missing, foreign, outdated or unreadable file is replaced by one rebuilt from the notes.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
from pathlib import Path

from memgit.consolidate.heuristic import CONSOLIDATOR
from memgit.errors import StorageError
from memgit.consolidate.heuristic.memory import SCHEMA_VERSION, Memory

FORMAT = f"{SCHEMA_VERSION}/{CONSOLIDATOR}/1"  # a file of another format is rebuilt
log = logging.getLogger("memgit.consolidate.cache")


def path_of(state_dir: Path, branch: str) -> Path:
    return state_dir / "memory" / f"{hashlib.sha1(branch.encode()).hexdigest()[:16]}.sqlite"


def open_memory(state_dir: Path, branch: str) -> Memory:
    """The branch's cached Memory (possibly empty or stale: compare `tree` with the branch's)."""
    path = path_of(state_dir, branch)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_file():  # else nothing to reuse: made once below (opening it would make it, to remake it)
            memory = Memory(str(path))
            if memory.get("format") == FORMAT and memory.get("branch") == branch:
                return memory
            memory.close()
    except (OSError, sqlite3.Error) as e:  # unreadable or unwritable: rebuilt, or kept in memory only
        log.warning("the consolidation cache %s cannot be used (%s); rebuilding it", path, e)
    for leftover in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            leftover.unlink()
        except FileNotFoundError:
            pass
        except OSError as e:
            log.warning("cannot remove %s (%s); the memory is kept in memory this time", leftover, e)
            return _fresh(Memory(), branch)
    try:
        return _fresh(Memory(str(path)), branch)
    except (OSError, sqlite3.Error) as e:
        log.warning("cannot create %s (%s); the memory is kept in memory this time", path, e)
        return _fresh(Memory(), branch)


def _fresh(memory: Memory, branch: str) -> Memory:
    memory.set("format", FORMAT)
    memory.set("branch", branch)
    return memory


def tree(memory: Memory) -> str | None:
    return memory.get("tree")


def set_tree(memory: Memory, tree_id: str | None) -> None:
    memory.set("tree", tree_id)


# sqlite's result codes (the low byte) that say the disk, not the data, is the problem
_STORAGE_CODES = {sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN}


def storage_error(e: sqlite3.Error) -> StorageError | None:
    """The StorageError a failed write to a cache database means, or None when it is no disk problem."""
    code = getattr(e, "sqlite_errorcode", None)
    if code is None or code & 0xFF not in _STORAGE_CODES:
        return None
    return StorageError(f"cannot write the consolidation cache (.git/memgit/memory): {e}; free some space on that "
                        "disk, or make it writable, then run the command again (the sessions read so far are "
                        "recorded; consolidation catches up at the next sync)")
