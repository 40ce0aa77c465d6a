"""Read the JSON records of a JSONL file from a byte offset, complete lines only, huge lines skipped."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, BinaryIO

from memgit.sources.decode import loads_for

_decoder = json.JSONDecoder()
_WHITESPACE = " \t\r\n"
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # json pairs the valid ones: any left is alone
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")  # one escaped; one encoded raw starts with 0xED
# Bytes; a longer line is consumed unread and counted as bad. Decoded, a line costs several times its
# size (a 50 MB tool output of non-ASCII log text took ~400 MB), and no one line of a session is
# worth that: reading stays within ~200 MB whatever the file holds.
MAX_LINE = 8 << 20
CHUNK = 1 << 20  # bytes read at a time past an oversize line


def scrub(value: Any) -> Any:
    """Replace every lone surrogate in value's strings (keys too) by U+FFFD.

    JSON may escape one (`"\\ud800"`), and json.loads passes one encoded raw; either would make the
    text impossible to write as UTF-8 later (a note, a commit message): one bad character must
    not cost the session.
    """
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {scrub(k): scrub(v) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    return value


def _suspect(line: bytes) -> bool:
    """True when a line may decode to a lone surrogate (a fast scan: almost no line does)."""
    return b"\xed" in line or _SURROGATE_ESCAPE.search(line) is not None


def split_objects(line: bytes) -> tuple[list[Any], bool]:
    """Decode every JSON value of a line (two may be glued together); say if all of it parsed."""
    text = line.decode("utf-8", errors="replace")
    values: list[Any] = []
    pos, size = 0, len(text)
    while True:
        while pos < size and text[pos] in _WHITESPACE:
            pos += 1
        if pos == size:
            return values, bool(values)
        try:
            value, pos = _decoder.raw_decode(text, pos)
        except (ValueError, RecursionError):  # RecursionError: absurdly deep nesting
            return values, False
        values.append(value)


def bounded_lines(f: BinaryIO, pos: int, limit: int, counts) -> Iterator[tuple[int, bytes]]:
    """Each line of `f` from byte `pos`, with its offset (the unterminated tail last). A line over
    `limit` bytes is never held whole: it is consumed in chunks unread and counted on `counts`
    (a reader's `end`, `bad_lines` and `oversize`)."""
    while line := f.readline(limit + 1):
        if len(line) > limit and line[-1:] != b"\n":
            size = rest_of_line(f, len(line))
            if size is None:  # the oversize tail of a file still being written
                return
            pos += size
            counts.end = pos
            counts.bad_lines += 1
            counts.oversize += 1
            continue
        yield pos, line
        pos += len(line)


def rest_of_line(f: BinaryIO, read: int) -> int | None:
    """Consume the rest of an oversize line; its whole size, or None when the stream ends first."""
    while True:
        more = f.readline(CHUNK)
        if not more:
            return None
        read += len(more)
        if more[-1:] == b"\n":
            return read


class JsonlRange:
    """The records of `f` from byte `start` to the last complete line.

    Iterate once; afterwards `end` is the offset after the last consumed byte and `bad_lines`
    counts the complete lines that were not (entirely) JSON, `oversize` the ones longer than
    `max_line`, consumed unread. A last line without a newline is consumed only when it parses
    completely: otherwise it may still be being written.
    """

    def __init__(self, f: BinaryIO, start: int = 0, *, max_line: int = MAX_LINE):
        self._f = f
        self.start = start
        self.end = start
        self.bad_lines = 0
        self.oversize = 0
        self._max = max_line

    def __iter__(self) -> Iterator[dict[str, Any]]:
        f = self._f
        loads = loads_for(f.seek(0, 2) - self.start)  # msgspec for a large read, when installed
        f.seek(self.start)
        for pos, line in bounded_lines(f, self.start, self._max, self):
            if line[-1:] != b"\n":  # the unterminated tail of the file
                values, complete = split_objects(line)
                if complete:
                    self.end = pos + len(line)
                    yield from self._records(values, line)
                return
            self.end = pos + len(line)
            try:
                value = loads(line)
            except (ValueError, RecursionError):  # not JSON, bad UTF-8, glued objects: the slow path
                if line.isspace():
                    continue
                values, complete = split_objects(line)
                if not complete:
                    self.bad_lines += 1
                yield from self._records(values, line)
                continue
            if not isinstance(value, dict):
                self.bad_lines += 1
            elif _suspect(line):
                yield from self._records([value], line)
            else:
                yield value

    def _records(self, values: list[Any], line: bytes) -> Iterator[dict[str, Any]]:
        """The objects among a line's values, their lone surrogates replaced when the line may hold one."""
        suspect = _suspect(line)
        for value in values:
            if not isinstance(value, dict):
                continue
            if suspect:
                try:
                    value = scrub(value)
                except RecursionError:  # nested deeper than scrubbing goes: a line not worth its cost
                    self.bad_lines += 1
                    continue
            yield value
