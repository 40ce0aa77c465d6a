"""Fuzzing the transcript readers: whatever bytes a transcript holds, `read_transcript` and the
record parser return what they can and never raise; a bad line is skipped and counted.

Inputs are the real fixture transcripts (read in place from ../shared; mutated copies go to
tmp_path) and the project's synthetic ones. Mutations: truncation anywhere, invalid UTF-8, NUL,
lone surrogates (escaped in JSON and raw), every field given the wrong type, huge and deeply
nested lines, glued objects. Seeded; each fuzz loop stops after a few seconds.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest

from memgit.core.model import Transcript
from memgit.sources.claude_code.reader import read_transcript
from memgit.sources.claude_code.records import RecordParser
from memgit.sources.jsonl import JsonlRange
from memgit.sources.claude_code.synthetic import SessionWriter, demo_sessions, session_id
from tests.conftest import CLAUDE_FIXTURES, age, fsck, ledger_commits, needs_shared

SEED = 20261125
BUDGET = 3.0  # seconds per fuzz loop
WRONG = [None, 0, -1, 2.5, True, "", "text", [], {}, [None], {"type": None}, [[[]]], {"content": 7},
         "\ud800", "\udfff tail", "nul\u0000here", 10**40, ["\ud83d"]]


def fixtures() -> list[Path]:
    return sorted(CLAUDE_FIXTURES.rglob("*.jsonl")) if CLAUDE_FIXTURES.is_dir() else []


def synthetic() -> list[bytes]:
    return [s.lines().encode() for s in demo_sessions()]


def assert_sound(t: Transcript, size: int, start: int) -> None:
    """What a reader returns is usable: offsets in range, every string writable as UTF-8."""
    assert t.start == start and start <= t.end <= max(size, start)
    assert t.bad_lines >= 0
    for value in (t.cwd, t.git_branch, t.title, t.started, t.ended, t.version):
        if value is not None:
            value.encode("utf-8")
    for turn in t.turns:
        turn.text.encode("utf-8")
        for call in turn.tool_calls:
            json.dumps(call.input, ensure_ascii=False).encode("utf-8")
            (call.output or "").encode("utf-8")


# ---- mutations ------------------------------------------------------------------------------


def _wrong_types(rng: random.Random, value, depth: int = 0):
    """The value with some of its fields (at any depth) replaced by a value of another type."""
    if rng.random() < 0.12 or depth > 8:
        return rng.choice(WRONG)
    if isinstance(value, dict):
        return {k: _wrong_types(rng, v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_wrong_types(rng, v, depth + 1) for v in value]
    return value


def mutate(rng: random.Random, data: bytes) -> bytes:
    kind = rng.randrange(8)
    if kind == 0:  # truncated anywhere, mid-line and mid-character included
        return data[: rng.randrange(len(data) + 1)]
    if kind == 1:  # bad bytes: invalid UTF-8, NUL, a raw surrogate, stray JSON syntax, escapes
        out = bytearray(data)
        for _ in range(rng.randrange(1, 24)):
            at = rng.randrange(len(out) + 1)
            out[at:at] = rng.choice([b"\xff", b"\xfe\xfe", b"\x00", b"\xed\xa0\x80", b"\xc3", b"\xe2\x82", b"\n",
                                     b"{", b"}", b'"', b"\\", b"\\ud800", b"\\udfff", b"\\u0000", b"\r"])
        return bytes(out)
    lines = data.split(b"\n")
    if kind == 2:  # every field may get the wrong type
        out = []
        for line in lines:
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):  # an earlier mutation nested it too deep
                out.append(line)
                continue
            out.append(json.dumps(_wrong_types(rng, record)).encode() if rng.random() < 0.5 else line)
        return b"\n".join(out)
    if kind == 3:  # a huge line among the others
        at = rng.randrange(len(lines) + 1)
        text = "x" * rng.randrange(1, 4_000_000)
        huge = json.dumps({"type": rng.choice(["user", "assistant"]), "uuid": "huge",
                           "message": {"role": "user", "id": "m", "content": [{"type": "text", "text": text}]}})
        return b"\n".join([*lines[:at], huge.encode(), *lines[at:]])
    if kind == 4:  # nesting deeper than any parser's recursion
        depth = rng.choice([500, 5_000, 200_000])
        bomb = rng.choice([b"[" * depth, b'{"a":' * depth + b"1" + b"}" * depth, b"[" * depth + b"]" * depth])
        return b"\n".join([*lines[:1], bomb, *lines[1:]])
    if kind == 5:  # objects glued on one line
        return data.replace(b"}\n{", b"}{", rng.randrange(1, 12))
    if kind == 6:  # a lone surrogate escaped inside a string value, as JSON allows
        return data.replace(b'"text": "', b'"text": "\\ud83d', rng.randrange(1, 5)).replace(
            b'"cwd": "', b'"cwd": "\\udc00', 1)
    return b"\n".join(line + b"\r" for line in lines)  # CRLF endings


# ---- the fuzz loops -----------------------------------------------------------------------


@needs_shared
def test_every_fixture_read_in_place_from_any_offset_never_raises():
    rng = random.Random(SEED)
    for path in fixtures():
        size = path.stat().st_size
        for start in (0, rng.randrange(size + 1), rng.randrange(size + 1), size):
            assert_sound(read_transcript(path, start=start), size, start)


def test_mutated_transcripts_never_raise_out_of_the_reader(tmp_path):
    rng = random.Random(SEED)
    bases = synthetic() + [p.read_bytes() for p in fixtures() if p.stat().st_size < 300_000]
    target = tmp_path / f"{session_id('fuzz')}.jsonl"
    deadline, done = time.monotonic() + BUDGET, 0
    while done < 50 or time.monotonic() < deadline:
        data = mutate(rng, rng.choice(bases))
        if rng.random() < 0.3:
            data = mutate(rng, data)  # two mutations at once
        target.write_bytes(data)
        start = rng.choice([0, 0, 0, rng.randrange(len(data) + 1)])
        try:
            assert_sound(read_transcript(target, start=start), len(data), start)
        except Exception as e:  # the input that broke it, for the report
            (tmp_path / "failing.jsonl").write_bytes(data)
            raise AssertionError(f"iteration {done}, start {start}: {type(e).__name__}: {e}; "
                                 f"input kept in {tmp_path / 'failing.jsonl'}") from e
        done += 1
        if done >= 5_000:
            break
    assert done >= 50


def test_the_record_parser_takes_a_wrong_type_in_every_field():
    """Exhaustive over the fields of real and synthetic records: each one, at every depth, in turn."""
    records = [r for s in demo_sessions() for r in s.records]
    for path in fixtures()[:6]:
        with open(path, "rb") as f:
            records += [r for _, r in zip(range(40), JsonlRange(f))]

    def paths(value, prefix=()):
        if isinstance(value, dict):
            for key, child in value.items():
                yield (*prefix, key)
                yield from paths(child, (*prefix, key))
        elif isinstance(value, list):
            for i, child in enumerate(value[:4]):
                yield (*prefix, i)
                yield from paths(child, (*prefix, i))

    def replaced(value, path, new):
        if not path:
            return new
        copy = dict(value) if isinstance(value, dict) else list(value)
        copy[path[0]] = replaced(copy[path[0]], path[1:], new)
        return copy

    deadline, fed = time.monotonic() + BUDGET, 0
    for record in records:
        for path in paths(record):
            for wrong in WRONG:
                parser = RecordParser(sidechain=False)
                for other in records[:3]:
                    parser.feed(other)
                parser.feed(replaced(record, path, wrong))
                parser.finish()
                parser.title()
                fed += 1
        if time.monotonic() > deadline:
            break
    assert fed > 1_000


# ---- bad lines are skipped and counted; odd text does not cost the session --------------------


def test_each_bad_line_is_skipped_and_counted(tmp_path):
    w = SessionWriter(session_id("bad-lines"), "/home/demo/dev/pinion")
    w.user("Export to CSV. Always use the csv module.").bash("uv run pytest", "5 passed in 0.40s")
    good = w.lines().encode().splitlines(keepends=True)
    bad = [b'{"type": "user", "message": {"content": "cut\n',  # truncated JSON
           b"\xff\xfe not json at all\n",  # invalid UTF-8
           b'{"type": "user", "cwd": "/x"\x00}\n',  # a raw NUL inside the object
           b"[1, 2, 3]\n", b"42\n", b'"a string"\n',  # JSON, but no record
           b"[" * 100_000 + b"\n"]  # nesting past the recursion limit
    path = tmp_path / f"{w.session_id}.jsonl"
    path.write_bytes(b"".join([good[0], *bad, *good[1:]]))
    t = read_transcript(path)
    assert t.bad_lines == len(bad)
    assert [turn.role for turn in t.turns] == ["user", "assistant"]
    assert t.end == path.stat().st_size


def test_a_lone_surrogate_does_not_cost_the_session(claude_projects, memory_path, memgit_cli):
    w = SessionWriter(session_id("surrogate"), "/home/demo/dev/pinion")
    w.user("Add CSV export \ud83d. Always use the csv module, never hand-rolled joins.")  # json escapes it: \ud83d
    w.bash("uv run pytest", "5 passed in 0.40s \udfff")
    path = w.write(claude_projects)
    raw = path.read_bytes()
    assert b"\\ud83d" in raw
    path.write_bytes(raw.replace(b"5 passed", b"\xed\xa0\x80 5 passed"))  # and one encoded raw (CESU-style)
    age(path)
    result = memgit_cli("sync", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["extracted"] == 1, result.stdout
    [row] = ledger_commits(memory_path)
    assert row["kind"] == "extract"
    fsck(memory_path)


@pytest.mark.parametrize("where", ["mid-character", "before-the-closing-brace"])
def test_a_transcript_cut_short_reads_up_to_its_last_whole_line(tmp_path, where):
    w = SessionWriter(session_id("cut"), "/home/demo/dev/pinion")
    w.user("Naïve café — résumé ✓ ünïcödé").assistant("Noted: ✓")
    data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in w.records).encode("utf-8")  # raw UTF-8
    last = data.rstrip(b"\n").rfind(b"\n") + 1  # where the last line starts
    cut = data.rfind("✓".encode()) + 1 if where == "mid-character" else len(data) - 2
    path = tmp_path / f"{w.session_id}.jsonl"
    path.write_bytes(data[:cut])  # as a transcript still being written looks
    t = read_transcript(path)
    assert t.end == last and t.bad_lines == 0 and [turn.role for turn in t.turns] == ["user"]
