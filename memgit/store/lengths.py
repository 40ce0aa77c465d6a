"""Decompressed lengths of compressed transcripts, remembered in `.git/memgit/lengths.json`.

A `.zst` rollout's offsets count decompressed bytes, so telling whether it holds bytes not yet
read means decompressing it; this cache keeps that to once per file version (size and mtime).
Derived: deleting it costs one decompression per compressed file at the next sync.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from memgit.errors import MemgitError

VERSION = 1


class Lengths:
    def __init__(self, state_dir: Path, measure: Callable):
        self.path = Path(state_dir) / "lengths.json"
        self.measure = measure
        self.changed = False
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            self.known = data["files"] if data.get("version") == VERSION else {}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            self.known = {}

    def __call__(self, file) -> int:
        if not file.compressed:
            return file.size
        stamp = [file.size, file.mtime]
        entry = self.known.get(file.key)
        if entry and entry[:2] == stamp:
            return entry[2]
        try:
            length = self.measure(file)
        except MemgitError:  # undecodable, or no zstd decoder: the read says why, and is recorded
            return file.size
        self.known[file.key] = [*stamp, length]
        self.changed = True
        return length

    def save(self) -> None:
        """Write the cache if it learned something; a failure only costs a decompression next time."""
        if not self.changed:
            return
        tmp = self.path.with_name(f"lengths.{os.getpid()}.tmp")
        try:
            tmp.write_text(json.dumps({"version": VERSION, "files": self.known}), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError:
            pass
