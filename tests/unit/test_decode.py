"""The optional msgspec decoder reads every line to exactly what json.loads makes of it."""

from __future__ import annotations

import io
import json

import pytest

from memgit.sources import decode
from memgit.sources.jsonl import JsonlRange

msgspec = pytest.importorskip("msgspec")

LINES = [
    b'{"type":"user","message":{"content":"hi"}}\n',
    b'{"n":123456789012345678901234567890,"m":-1,"f":0.1,"e":1.1e-320,"z":-0.0}\n',  # big ints stay ints
    b'{"a":NaN,"b":Infinity}\n',  # json's extensions: msgspec refuses, json reads
    b'{"a":1e400}\n',
    b'{"s":"\\ud800 lone"}\n',  # an escaped lone surrogate
    b'{"s":"\xed\xa0\x80 raw"}\n',  # an encoded one
    b'\xef\xbb\xbf{"bom":true}\n',
    b'{"a":1,"a":2}\n',
    b'{"emoji":"\\ud83d\\ude00","nul":"\\u0000"}\n',
    b'{"a":1}{"b":2}\n',  # glued: the slow path either way
    b"[" * 3000 + b"]" * 3000 + b"\n",
    b"not json\n",
    b"[1,2]\n",
]


@pytest.fixture
def fast(monkeypatch):
    """msgspec from the first byte read (FAST_FROM reached), as in a large sync."""
    monkeypatch.setattr(decode, "_fast", None)
    monkeypatch.setattr(decode, "_tried", False)
    monkeypatch.setattr(decode, "_read", decode.FAST_FROM)
    loads = decode.loads_for(0)
    assert loads is not json.loads
    return loads


@pytest.mark.parametrize("line", LINES, ids=range(len(LINES)))
def test_a_line_decodes_to_what_json_makes_of_it(fast, line):
    def outcome(loads):
        try:
            return repr(loads(line))  # repr: 1 and 1.0, nan, -0.0 told apart
        except (ValueError, RecursionError) as e:
            return type(e).__name__
    assert outcome(fast) == outcome(json.loads)


def test_a_file_reads_to_the_same_records_and_bad_lines_with_either_decoder(monkeypatch, fast):
    data = b"".join(LINES)
    with_fast = JsonlRange(io.BytesIO(data))
    fast_records = [repr(r) for r in with_fast]
    monkeypatch.setattr(decode, "_fast", None)  # the standard library, as without the `fast` extra
    with_json = JsonlRange(io.BytesIO(data))
    assert [repr(r) for r in with_json] == fast_records
    assert (with_fast.bad_lines, with_fast.end) == (with_json.bad_lines, with_json.end) == (3, len(data))


def test_a_small_read_does_not_import_msgspec(monkeypatch):
    monkeypatch.setattr(decode, "_fast", None)
    monkeypatch.setattr(decode, "_tried", False)
    monkeypatch.setattr(decode, "_read", 0)
    assert decode.loads_for(1 << 20) is json.loads
    assert not decode._tried
