"""The Codex and Gemini CLI sources over every real fixture, read in place from ../shared/fixtures."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from memgit.extract import heuristic
from memgit.core.model import USER_KINDS, Extraction, Transcript
from memgit.sources import codex, gemini
from memgit.sources.codex.fragments import REQUEST
from memgit.sources.codex.discovery import thread_id
from tests.conftest import FIXTURES, SHARED

CODEX_FIXTURES, GEMINI_FIXTURES = FIXTURES / "codex", FIXTURES / "gemini"
CODEX = sorted(CODEX_FIXTURES.rglob("*.jsonl")) if CODEX_FIXTURES.is_dir() else []
GEMINI = sorted(GEMINI_FIXTURES.rglob("*.json")) if GEMINI_FIXTURES.is_dir() else []
SCHEMA = CODEX_FIXTURES / "agent-sessions" / "schema-coverage-small.jsonl"  # not a real session (SOURCES.md)
COMPACTED = CODEX_FIXTURES / "localpush" / "rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"
ABANDONED = CODEX_FIXTURES / "localpush" / "rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl"
LARGEST = CODEX_FIXTURES / "agentcmd" / "rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl"
DESKTOP = CODEX_FIXTURES / "codemie-code" / "rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl"
INJECTED = ("<environment_context", "# AGENTS.md instructions", "<permissions instructions", "<user_instructions",
            "<INSTRUCTIONS>", REQUEST, "<session_context>", "<hook_context>", "<memgit-context")

pytestmark = pytest.mark.skipif(
    not (CODEX_FIXTURES.is_dir() and GEMINI_FIXTURES.is_dir()),
    reason="../shared/fixtures/transcripts/{codex,gemini} are absent (real transcripts live beside the project)",
)


END_EVENTS = ("exec_command_end", "patch_apply_end", "mcp_tool_call_end")


def _id(path: Path) -> str:
    return path.relative_to(FIXTURES).as_posix()


@cache
def read(path: Path) -> Transcript:
    return (codex if path in CODEX else gemini).read_transcript(path)


def raw(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def signature(turns) -> list[tuple]:
    return [(t.role, t.kind, t.text, t.sidechain,
             [(c.id, c.name, c.input, c.output, c.is_error, c.answered) for c in t.tool_calls]) for t in turns]


def events(records: list[dict], kind: str) -> list[dict]:
    return [r["payload"] for r in records if r.get("type") == "event_msg" and r["payload"].get("type") == kind]


# -- Codex -------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", CODEX, ids=_id)
def test_codex_rollout_reads_whole_as_one_session(path):
    t, records = read(path), raw(path)
    header = next(r["payload"] for r in records if r.get("type") == "session_meta")
    assert (t.agent, t.end, t.bad_lines, t.skipped, t.records) == ("codex", path.stat().st_size, 0, 0, len(records))
    assert t.session_id == (thread_id(path.name) or header["id"])
    assert (t.cwd, t.version) == (header["cwd"], header["cli_version"])
    assert t.git_branch == (header.get("git") or {}).get("branch")
    assert {t.kind for t in t.turns if t.role == "user"} <= set(USER_KINDS)
    for turn in t.turns:
        if turn.role == "user":
            assert turn.text.strip() and not any(marker in turn.text for marker in INJECTED), turn.text[:200]


@pytest.mark.parametrize("path", [p for p in CODEX if p != SCHEMA], ids=_id)
def test_codex_prompts_are_the_typed_words_only(path):
    records = raw(path)
    typed = [m["message"] for m in events(records, "user_message") if m.get("kind") not in ("environment_context",)]
    expected = [m[m.rfind(REQUEST) + len(REQUEST):].strip() if REQUEST in m else m.strip() for m in typed]
    prompts = [x.text for x in read(path).turns if x.role == "user" and x.kind == "prompt"]
    assert prompts == expected
    injected_items = [r for r in records if r.get("type") == "response_item" and r["payload"].get("role") == "user"]
    assert len(injected_items) >= len(prompts) or path == DESKTOP  # the Desktop build writes no user items


@pytest.mark.parametrize("path", CODEX, ids=_id)
def test_codex_every_output_finds_its_call(path):
    records, t = raw(path), read(path)
    payloads = [r["payload"] for r in records if isinstance(r.get("payload"), dict)]
    answered = {p.get("call_id") for p in payloads if str(p.get("type")).endswith("_output")
                or p.get("type") in END_EVENTS}
    calls = [c for turn in t.turns for c in turn.tool_calls if c.name != "web_search"]
    made = {p["call_id"] for p in payloads
            if p.get("type") in ("function_call", "custom_tool_call", "local_shell_call", "tool_search_call")}
    assert {c.id for c in calls} == made
    for call in calls:
        assert call.answered == (call.id in answered), call.id
    unanswered = [c.id for c in calls if not c.answered]
    assert len(unanswered) == (1 if path == ABANDONED else 0)


def test_codex_compaction_and_interrupts():
    t = read(COMPACTED)
    summaries = [x for x in t.turns if x.kind == "compact_summary"]
    compacted = [r for r in raw(COMPACTED) if r.get("type") == "compacted"]
    assert len(summaries) == len(compacted) == 1
    assert sum(x.kind == "interrupt" for x in read(LARGEST).turns) == 4


@pytest.mark.parametrize("path", [p for p in CODEX if p != SCHEMA], ids=_id)
def test_codex_resumed_reads_add_up_to_a_whole_read(path, tmp_path):
    """Read up to a turn's start, then the rest from there: the turns are those of one whole read."""
    records = raw(path)
    ends = {r["payload"].get("call_id") for r in records if r["payload"].get("type") in END_EVENTS}
    offsets, offset, pending = [], 0, set()
    with open(path, "rb") as f:
        for line in f:
            payload = json.loads(line).get("payload") or {}
            kind, call_id = payload.get("type"), payload.get("call_id")
            if kind == "user_message" or (kind == "message" and payload.get("role") == "assistant" and not pending):
                offsets.append(offset)  # a new turn starts here and no call waits for its end
            if kind in ("function_call", "custom_tool_call"):
                pending.add(call_id)
            elif (str(kind).endswith("_output") and call_id not in ends) or kind in END_EVENTS:
                pending.discard(call_id)
            offset += len(line)
    whole = read(path)
    for split in offsets[1::max(1, len(offsets) // 4)]:
        head = codex.read_transcript(_prefix(path, split, tmp_path))
        rest = codex.read_transcript(path, start=head.end)
        assert head.end == split
        assert (rest.start, rest.end, rest.cwd, rest.session_id) == (split, whole.end, whole.cwd, whole.session_id)
        assert signature(head.turns) + signature(rest.turns) == signature(whole.turns)


def _prefix(path: Path, size: int, tmp_path: Path) -> Path:
    """A copy of the file's first `size` bytes: the file as it was when an earlier sync read it."""
    copy = tmp_path / "prefix" / str(size) / path.name
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_bytes(path.read_bytes()[:size])
    return copy


def test_codex_zst_reads_like_the_plain_rollout(tmp_path):
    zstandard = pytest.importorskip("zstandard")
    packed = tmp_path / (LARGEST.name + ".zst")
    packed.write_bytes(zstandard.ZstdCompressor().compress(LARGEST.read_bytes()))
    whole, zst = read(LARGEST), codex.read_transcript(packed)
    assert signature(zst.turns) == signature(whole.turns)
    assert (zst.end, zst.session_id, zst.cwd, zst.records) == (whole.end, whole.session_id, whole.cwd, whole.records)
    middle = LARGEST.read_bytes().index(b"\n", whole.end // 2) + 1
    assert signature(codex.read_transcript(packed, start=middle).turns) == \
        signature(codex.read_transcript(LARGEST, start=middle).turns)


def test_schema_coverage_file_never_crashes():
    t = read(SCHEMA)
    assert t.bad_lines == 0 and t.turns and t.title
    assert [x.text for x in t.turns if x.kind == "prompt"][0] == "List the files"


# -- Gemini CLI --------------------------------------------------------------------------------


@pytest.mark.parametrize("path", GEMINI, ids=_id)
def test_gemini_session_reads_whole(path):
    doc, t = json.loads(path.read_text()), read(path)
    assert (t.agent, t.session_id, t.start, t.end, t.bad_lines, t.skipped, t.records) == (
        "gemini-cli", doc["sessionId"], 0, path.stat().st_size, 0, 0, 1)
    users = [m["content"] for m in doc["messages"] if m["type"] == "user"]
    assert [x.text for x in t.turns if x.role == "user"] == users
    assert hashlib.sha256(t.cwd.encode()).hexdigest() == doc["projectHash"]
    calls = [c for x in t.turns for c in x.tool_calls]
    assert len(calls) == sum(len(m.get("toolCalls") or []) for m in doc["messages"])
    assert all(c.answered for c in calls)
    assert all(c.output for c in calls if c.kind != "shell")  # a command may print nothing
    again = gemini.read_transcript(path, start=100)
    assert (again.start, signature(again.turns)) == (0, signature(t.turns))


@pytest.mark.parametrize("path", GEMINI, ids=_id)
def test_gemini_jsonl_form_reads_like_the_document_and_resumes(path, tmp_path):
    """The same session as v0.39+ would write it: grown messages re-appended, metadata updates."""
    doc = json.loads(path.read_text())
    out, starts = [], []
    meta = {k: v for k, v in doc.items() if k != "messages"}
    out.append(json.dumps(meta))
    for message in doc["messages"]:
        if message["type"] == "user":
            starts.append(sum(len(line) + 1 for line in out))
        if message.get("toolCalls"):
            running = {**message, "toolCalls": [{k: v for k, v in c.items() if k != "result"} | {"status": "executing"}
                                                for c in message["toolCalls"]]}
            out.append(json.dumps(running))
        out.append(json.dumps(message))
        out.append(json.dumps({"$set": {"lastUpdated": message["timestamp"]}}))
    jsonl = tmp_path / (path.name.split(".")[0] + ".jsonl")
    jsonl.write_text("\n".join(out) + "\n")
    whole = gemini.read_transcript(jsonl)
    assert signature(whole.turns) == signature(read(path).turns)
    assert (whole.cwd, whole.session_id, whole.end) == (read(path).cwd, doc["sessionId"], jsonl.stat().st_size)
    for split in starts[1:]:
        head = gemini.read_transcript(_prefix(jsonl, split, tmp_path))
        rest = gemini.read_transcript(jsonl, start=head.end)
        assert head.end == split
        assert signature(head.turns) + signature(rest.turns) == signature(whole.turns)


# -- discovery in the layout the evaluation uses --------------------------------------------------


def test_discover_finds_every_fixture_in_an_agents_home(tmp_path):
    layout = SHARED / "eval" / "layout_agents.py"
    if not layout.is_file():
        pytest.skip("../shared/eval/layout_agents.py is absent")
    done = subprocess.run([sys.executable, str(layout), str(FIXTURES), str(tmp_path)], capture_output=True,
                          text=True, check=True)
    expected = [line.split("\t") for line in done.stdout.splitlines()]
    env = {"HOME": str(tmp_path)}
    found = {"codex": codex.discover(codex.default_root(env)), "gemini": gemini.discover(gemini.default_root(env))}
    for agent, files in found.items():
        assert sorted(f.session_id for f in files) == sorted(sid for a, sid, _ in expected if a == agent)
    for file in found["codex"] + found["gemini"]:
        module = codex if file.agent == "codex" else gemini
        t = module.read_transcript(file.path, session_id=file.session_id)
        assert t.session_id == file.session_id and t.end == file.size
        assert module.peek_cwd(file.path) == t.cwd
    assert {f.agent for f in found["gemini"]} == {"gemini-cli"}


# -- the offline extractor over them -----------------------------------------------------------


@pytest.mark.parametrize("path", CODEX + GEMINI, ids=_id)
def test_heuristic_extractor_reads_every_fixture(path):
    result = heuristic.extract(read(path), project="fixture")
    assert isinstance(result, Extraction)
    assert result.note is not None or result.reason
