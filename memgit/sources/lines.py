"""Read the JSON records of a JSONL stream from a byte offset: complete lines only, huge lines skipped.

Like `jsonl.JsonlRange` (the Claude Code reader's), and for any binary stream: a plain file, or a
decompressed `.zst` that can only be read forwards. A line longer than `max_line` is consumed
without being parsed and counted as bad: a Codex rollout can hold `compacted` lines of hundreds of
megabytes (whole histories with base64 images), which must not be loaded whole.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, BinaryIO

from memgit.sources.files import CorruptStream
from memgit.sources.jsonl import CHUNK, MAX_LINE, bounded_lines, split_objects


class RecordRange:
    """The records of `f` from byte `start` to the last complete line.

    Iterate once; afterwards `end` is the offset after the last consumed byte and `bad_lines`
    counts the complete lines that were not (entirely) JSON objects, `oversize` the ones skipped
    unread for their size. A last line without a newline is consumed only when it parses
    completely: otherwise it may still be being written. A stream shorter than `start` yields
    nothing (`end == start`). Compressed data that stops decoding ends the range there, counted as
    one bad line.
    """

    def __init__(self, f: BinaryIO, start: int = 0, *, max_line: int = MAX_LINE):
        self._f = f
        self.start = start
        self.end = start
        self.bad_lines = 0
        self.oversize = 0
        self.corrupt = False
        self._max = max_line

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for _, record in self.with_offsets():
            yield record

    def with_offsets(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """(offset of its line, record) for every record of the range."""
        try:
            yield from self._scan()
        except CorruptStream:
            self.bad_lines += 1
            self.corrupt = True

    def _scan(self) -> Iterator[tuple[int, dict[str, Any]]]:
        f = self._f
        if not _skip(f, self.start):
            return
        loads = json.loads
        for offset, line in bounded_lines(f, self.start, self._max, self):
            if line[-1:] != b"\n":  # the unterminated tail of the file
                values, complete = split_objects(line)
                if complete:
                    self.end = offset + len(line)
                    yield from ((offset, v) for v in values if isinstance(v, dict))
                return
            self.end = offset + len(line)
            try:
                value = loads(line)
            except (ValueError, RecursionError):  # not JSON, bad UTF-8, glued objects: the slow path
                if line.isspace():
                    continue
                values, complete = split_objects(line)
                if not complete:
                    self.bad_lines += 1
                for value in values:
                    if isinstance(value, dict):
                        yield offset, value
                continue
            if isinstance(value, dict):
                yield offset, value
            else:
                self.bad_lines += 1


def _skip(f: BinaryIO, start: int) -> bool:
    """Move to byte `start`: seek when the stream can, else read and drop. False if it is shorter."""
    if start <= 0:
        return True
    if f.seekable():
        f.seek(start)
        return True
    left = start
    while left > 0:
        chunk = f.read(min(left, CHUNK))
        if not chunk:
            return False
        left -= len(chunk)
    return True
