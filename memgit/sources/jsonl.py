"""Read the JSON records of a JSONL file from a byte offset, complete lines only."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, BinaryIO

_decoder = json.JSONDecoder()
_WHITESPACE = " \t\r\n"


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


class JsonlRange:
    """The records of `f` from byte `start` to the last complete line.

    Iterate once; afterwards `end` is the offset after the last consumed byte and `bad_lines`
    counts the complete lines that were not (entirely) JSON. A last line without a newline is
    consumed only when it parses completely: otherwise it may still be being written.
    """

    def __init__(self, f: BinaryIO, start: int = 0):
        self._f = f
        self.start = start
        self.end = start
        self.bad_lines = 0

    def __iter__(self) -> Iterator[dict[str, Any]]:
        f = self._f
        f.seek(self.start)
        pos = self.start
        loads = json.loads
        for line in f:
            if line[-1:] != b"\n":  # the unterminated tail of the file
                values, complete = split_objects(line)
                if complete:
                    self.end = pos + len(line)
                    yield from (v for v in values if isinstance(v, dict))
                return
            pos += len(line)
            self.end = pos
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
                        yield value
                continue
            if isinstance(value, dict):
                yield value
            else:
                self.bad_lines += 1
