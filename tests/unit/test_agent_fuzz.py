"""The Codex and Gemini readers never raise on bad content: seeded fuzzing, a few seconds each."""

from __future__ import annotations

import copy
import json
import random
import time
from pathlib import Path

import pytest

from memgit.sources import codex, gemini
from tests.unit.test_codex_parse import NAME, answer, call, meta, output, said, user_item
from tests.unit.test_gemini_parse import meta_line, model, tool, user

WRONG = [None, True, 0, -1, 1.5, "", "x", [], [None], {}, {"type": []}, [[["deep"]]], "\x00", "\udcff"]
BUDGET = 2.0  # seconds of random mutations per reader


def codex_records() -> list[dict]:
    return [
        meta(), user_item("<environment_context><cwd>/w</cwd></environment_context>", "hi"), said("fix it"),
        call("c1", name="shell", command=["bash", "-lc", "pytest"]), output("c1", '{"output": "ok", "metadata": {"exit_code": 0}}'),
        {"timestamp": "t", "type": "response_item", "payload": {"type": "custom_tool_call", "call_id": "c2",
                                                               "name": "apply_patch", "input": "*** Update File: a"}},
        {"timestamp": "t", "type": "event_msg", "payload": {"type": "exec_command_end", "call_id": "c1", "exit_code": 1,
                                                           "aggregated_output": "boom"}},
        {"timestamp": "t", "type": "event_msg", "payload": {"type": "item_completed", "item": {
            "type": "UserMessage", "content": [{"type": "text", "text": "more"}]}}},
        {"timestamp": "t", "type": "compacted", "payload": {"message": "summary", "replacement_history": [{}]}},
        {"timestamp": "t", "type": "event_msg", "payload": {"type": "thread_rolled_back", "num_turns": 1}},
        answer("done"),
    ]


def gemini_records() -> list[dict]:
    return [
        meta_line(), user("u1", [{"text": "hello"}], displayContent="hello"),
        model("g1", [{"text": "t", "thought": True}], tool("c1", "run_shell_command", command="ls")),
        user("u2", [{"functionResponse": {"id": "c1", "response": {"error": "x"}}}]),
        {"$set": {"messages": [user("s", "<state_snapshot>x</state_snapshot>")], "summary": "s"}},
        {"$rewindTo": "u2"}, user("u3", "/help"),
    ]


def _paths(value, prefix=()):
    yield prefix
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        yield from _paths(child, prefix + (key,))


def _replaced(record, path, new):
    record = copy.deepcopy(record)
    if not path:
        return new
    parent = record
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = new
    return record


def _encode(records) -> bytes:
    return b"".join(json.dumps(r, ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n" for r in records)


def _read_all_ways(module, path: Path, data: bytes, rng: random.Random) -> None:
    path.write_bytes(data)
    for start in (0, rng.randrange(len(data) + 2), len(data)):
        t = module.read_transcript(path, start=start)
        assert 0 <= t.start <= t.end <= max(len(data), t.start)
    module.peek_cwd(path)


READERS = [(codex, codex_records, NAME), (gemini, gemini_records, "session-2026-07-01T10-00-2a07c579.jsonl")]


@pytest.mark.parametrize(("module", "records", "name"), READERS, ids=["codex", "gemini"])
def test_every_field_of_every_record_may_have_the_wrong_type(tmp_path, module, records, name):
    rng, base, path = random.Random(7), records(), tmp_path / name
    for index, record in enumerate(base):
        for where in _paths(record):
            for wrong in rng.sample(WRONG, 4):
                mutated = base[:index] + [_replaced(record, where, wrong)] + base[index + 1:]
                _read_all_ways(module, path, _encode(mutated), rng)


@pytest.mark.parametrize(("module", "records", "name"), READERS, ids=["codex", "gemini"])
def test_random_damage_never_raises(tmp_path, module, records, name):
    rng, path = random.Random(20261124), tmp_path / name
    clean = _encode(records())
    mutations = [
        lambda d: d[: rng.randrange(len(d))],  # torn anywhere
        lambda d: _splice(d, rng, bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))),  # invalid UTF-8
        lambda d: _splice(d, rng, b"\x00" * rng.randint(1, 4)),  # NUL
        lambda d: _splice(d, rng, b"\n"),  # a line split in two
        lambda d: d.replace(b"\n", b"", 1),  # two records glued
        lambda d: _splice(d, rng, b'{"x": "' + b"y" * rng.randint(100_000, 2_000_000) + b'"}\n'),  # a huge line
        lambda d: _splice(d, rng, b"[" * 50_000 + b"]" * 50_000 + b"\n"),  # absurd nesting
        lambda d: d * rng.randint(2, 3),  # everything twice (a resume writing it again)
    ]
    began, rounds = time.perf_counter(), 0
    while time.perf_counter() - began < BUDGET:
        data = clean
        for _ in range(rng.randint(1, 3)):
            data = rng.choice(mutations)(data) or b"\n"
        _read_all_ways(module, path, data, rng)
        rounds += 1
    assert rounds > 20


def test_legacy_document_damage_never_raises(tmp_path):
    rng = random.Random(3)
    doc = {**meta_line(), "messages": gemini_records()[1:4]}
    text = json.dumps(doc, indent=2).encode()
    path = tmp_path / "session-2026-01-15T20-51-2a07c579.json"
    for _ in range(200):
        cut = rng.randrange(len(text))
        _read_all_ways(gemini, path, text[:cut] + bytes([rng.randrange(256)]) + text[cut + 1:], rng)
    ts_doc = tmp_path / f"rollout-2025-04-20-{NAME[-41:-6]}.json"
    for wrong in WRONG:
        _read_all_ways(codex, ts_doc, json.dumps({"session": wrong, "items": [wrong, {"type": wrong}]}).encode(), rng)


def _splice(data: bytes, rng: random.Random, piece: bytes) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + piece + data[at:]
