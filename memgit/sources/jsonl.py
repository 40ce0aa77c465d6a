"""Read the JSON records of a JSONL file from a byte offset, complete lines only."""

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
        loads = loads_for(f.seek(0, 2) - self.start)  # msgspec for a large read, when installed
        f.seek(self.start)
        pos = self.start
        for line in f:
            if line[-1:] != b"\n":  # the unterminated tail of the file
                values, complete = split_objects(line)
                if complete:
                    self.end = pos + len(line)
                    yield from self._records(values, line)
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
