"""The Codex source over small synthetic rollouts: each record type, era and degenerate case."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from memgit.errors import TranscriptError
from memgit.sources import codex
from memgit.sources.codex.rollout import INTERRUPTED
from memgit.sources.files import stream_size
from memgit.sources.lines import RecordRange

TID = "019e1625-789d-76c0-80ab-3724b5ddb799"
NAME = f"rollout-2026-05-11T11-26-55-{TID}.jsonl"
TS = "2026-05-11T08:27:17.490Z"
PREAMBLE = ("Another language model started to solve this problem and produced a summary of its thinking process. "
            "[…] Here is the summary produced by the other language model, use the information in this summary "
            "to assist with your own analysis:")


def meta(thread: str = TID, **payload) -> dict:
    body = {"id": thread, "timestamp": "2026-05-11T08:26:55.042Z", "cwd": "/work/proj", "originator": "codex-tui",
            "cli_version": "0.125.0", "source": "cli", "git": {"branch": "feat/x", "commit_hash": "c8c2"}}
    return {"timestamp": TS, "type": "session_meta", "payload": {**body, **payload}}


def item(**payload) -> dict:
    return {"timestamp": TS, "type": "response_item", "payload": payload}


def event(**payload) -> dict:
    return {"timestamp": TS, "type": "event_msg", "payload": payload}


def user_item(*texts: str) -> dict:
    return item(type="message", role="user", content=[{"type": "input_text", "text": t} for t in texts])


def said(text: str) -> dict:
    return event(type="user_message", message=text, images=[], local_images=[], text_elements=[])


def answer(text: str, phase: str = "final_answer") -> dict:
    return item(type="message", role="assistant", content=[{"type": "output_text", "text": text}], phase=phase)


def call(call_id: str, name: str = "exec_command", **args) -> dict:
    return item(type="function_call", name=name, arguments=json.dumps(args), call_id=call_id)


def output(call_id: str, text) -> dict:
    return item(type="function_call_output", call_id=call_id, output=text)


def lines(*records: dict) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def write(path: Path, *records: dict) -> Path:
    path.write_bytes(lines(*records))
    return path


def prompts(transcript, kind: str = "prompt") -> list[str]:
    return [t.text for t in transcript.turns if t.role == "user" and t.kind == kind]


def calls(transcript) -> list:
    return [c for t in transcript.turns for c in t.tool_calls]


# -- the person's words ------------------------------------------------------------------------


def test_words_come_from_events_not_the_injected_user_items(tmp_path):
    path = write(
        tmp_path / NAME, meta(),
        item(type="message", role="developer", content=[{"type": "input_text", "text": "<permissions instructions>x"}]),
        user_item("# AGENTS.md instructions for /work/proj\n\n<INSTRUCTIONS>\nuse uv\n</INSTRUCTIONS>",
                  "<environment_context>\n  <cwd>/work/proj</cwd>\n</environment_context>"),
        user_item("fix the import"), said("fix the import"), answer("Fixed."),
    )
    t = codex.read_transcript(path)
    assert prompts(t) == ["fix the import"]
    assert [(x.role, x.kind, x.text) for x in t.turns] == [
        ("user", "instructions", "use uv"), ("user", "prompt", "fix the import"), ("assistant", "message", "Fixed.")]
    assert (t.session_id, t.agent, t.cwd, t.git_branch, t.version) == (TID, "codex", "/work/proj", "feat/x", "0.125.0")
    assert (t.started, t.ended, t.skipped, t.bad_lines) == (TS, TS, 0, 0)


@pytest.mark.parametrize("text", [
    "<environment_context>\n<cwd>/a</cwd>\n</environment_context>",
    "<user_instructions>be brief</user_instructions>",
    "<skill>\n<name>x</name>\n</skill>",
    "<turn_aborted>\nThe user interrupted\n</turn_aborted>",
    "<subagent_notification>{}</subagent_notification>",
    '<hook_prompt hook_run_id="1">context</hook_prompt>',
    "<external_memory>notes</external_memory>",
    "# AGENTS.md instructions for /x\n<INSTRUCTIONS>a</INSTRUCTIONS>",
])
def test_injected_fragments_are_not_prompts(tmp_path, text):
    path = write(tmp_path / NAME, meta(), said(text), said("<b>bold</b> is fine"))
    assert prompts(codex.read_transcript(path)) == ["<b>bold</b> is fine"]


def test_ide_context_is_cut_to_the_request(tmp_path):
    message = ("# Context from my IDE setup:\n\n## Open tabs:\n- a.ts: a.ts\n\n"
               "## My request for Codex:\nWhy do we need stats?\n")
    path = write(tmp_path / NAME, meta(), said(message),
                 event(type="user_message", message="x", kind="environment_context"))
    assert prompts(codex.read_transcript(path)) == ["Why do we need stats?"]


def test_memgit_context_is_dropped_and_counted(tmp_path):
    path = write(tmp_path / NAME, meta(), said('<memgit-context project="p">notes</memgit-context>'), said("go"))
    t = codex.read_transcript(path)
    assert (prompts(t), t.injected) == (["go"], 1)


def test_interrupt_rollback_and_compaction(tmp_path):
    path = write(
        tmp_path / NAME, meta(),
        said("first"), answer("one"), said("second"), event(type="turn_aborted", reason="interrupted"),
        said("third"), answer("three"), event(type="thread_rolled_back", num_turns=1),
        {"timestamp": TS, "type": "compacted", "payload": {"message": "Summary: we fixed X", "replacement_history": []}},
        {"timestamp": TS, "type": "compacted", "payload": {"message": "", "replacement_history": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "first"}]},
            {"type": "compaction", "encrypted_content": "gAAAA"}]}},
        {"timestamp": TS, "type": "compacted", "payload": {"message": "", "replacement_history": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": PREAMBLE + "\nWe use uv."}]}]}},
        event(type="context_compacted"), said("after"),
    )
    t = codex.read_transcript(path)
    assert [(x.kind, x.text) for x in t.turns if x.role == "user"] == [
        ("prompt", "first"), ("prompt", "second"), ("interrupt", INTERRUPTED),
        ("compact_summary", "Summary: we fixed X"), ("compact_summary", "We use uv."), ("prompt", "after")]


def test_paginated_rollout_reads_thread_items(tmp_path):
    completed = {"type": "item_completed", "thread_id": TID, "turn_id": "t"}
    path = write(
        tmp_path / NAME, meta(history_mode="paginated"),
        event(**completed, item={"type": "UserMessage", "id": "u", "content": [{"type": "text", "text": "list files"}]}),
        call("c1", cmd="ls"), output("c1", "Chunk ID: 1\nWall time: 0.1 seconds\nProcess running with session ID 7\nOutput:\n"),
        event(**completed, item={"type": "CommandExecution", "id": "c1", "command": ["ls"], "exit_code": 2,
                                 "aggregated_output": "ls: nope"}),
        event(**completed, item={"type": "AgentMessage", "id": "a", "content": [{"type": "Text", "text": "x"}]}),
        event(**completed, item={"type": "FutureThing", "id": "f"}),
    )
    t = codex.read_transcript(path)
    assert prompts(t) == ["list files"]
    [c] = calls(t)
    assert (c.command, c.output, c.is_error, c.answered) == ("ls", "ls: nope", True, True)
    assert t.skipped == 1


# -- tool calls --------------------------------------------------------------------------------


def test_calls_pair_with_outputs_and_end_events(tmp_path):
    path = write(
        tmp_path / NAME, meta(), said("go"),
        call("c1", name="shell", command=["bash", "-lc", "pytest -q"], workdir="/w"),
        output("c1", json.dumps({"output": "1 failed", "metadata": {"exit_code": 1, "duration_seconds": 0.3}})),
        call("c2", cmd="npm test"),
        output("c2", "Chunk ID: a\nWall time: 1 seconds\nProcess exited with code 0\nOriginal token count: 3\nOutput:\nok\n"),
        item(type="custom_tool_call", status="completed", call_id="c3", name="apply_patch",
             input="*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n*** End Patch"),
        event(type="patch_apply_end", call_id="c3", success=False, stdout="", stderr="conflict", changes={}),
        item(type="custom_tool_call_output", call_id="c3", output=[{"type": "input_text", "text": "failed"}]),
        call("c4", name="mcp__gh__search", q="x"),
        event(type="mcp_tool_call_end", call_id="c4", result={"Err": "boom"}),
        call("c5", cmd="make"),
        event(type="exec_command_end", call_id="c5", exit_code=0, aggregated_output="built"),
        output("c5", "Chunk ID: b\nWall time: 1 seconds\nProcess running with session ID 9\nOutput:\n"),
        item(type="web_search_call", status="completed", action={"type": "search", "query": "zstd python"}),
        call("c6", cmd="sleep 100"),
        output("nobody", "an output whose call is not in the file"),
    )
    t = codex.read_transcript(path)
    got = {c.id or c.name: c for c in calls(t)}
    shell = got["c1"]
    assert (shell.command, shell.input["argv"][0], shell.output, shell.is_error) == ("pytest -q", "bash", "1 failed", True)
    assert (got["c2"].output, got["c2"].is_error) == ("ok", False)
    patch = got["c3"]
    assert (patch.file_path, patch.is_error, patch.output) == ("src/a.py", True, "conflict")
    assert (got["c4"].output, got["c4"].is_error) == ("boom", True)
    assert (got["c5"].output, got["c5"].answered) == ("built", True)  # the end event's output is the fuller one
    assert (got["web_search"].input, got["web_search"].answered) == ({"query": "zstd python"}, True)
    assert (got["c6"].answered, got["c6"].output) == (False, "")
    assert len(t.turns) == 2 and len(t.turns[1].tool_calls) == 7  # one agent turn holds the calls


def test_long_inputs_and_outputs_are_redacted_then_trimmed(tmp_path):
    secret = "ghp_" + "a1B2c3D4e5" * 4
    big = "line\n" * 2000 + secret + "\n" + "tail\n" * 2000
    path = write(tmp_path / NAME, meta(), said("go"), call("c1", cmd="cat log", note=big), output("c1", big))
    [c] = calls(codex.read_transcript(path))
    assert "chars trimmed" in c.output and "chars trimmed" in c.input["note"]
    assert secret not in c.output + c.input["note"]
    seen = []
    codex.read_transcript(path, clean=lambda s: seen.append(len(s)) or s)
    assert seen == [len(big), len(big.strip())]  # the whole text is cleaned before it is cut


# -- eras --------------------------------------------------------------------------------------


def test_pre_envelope_rollout(tmp_path):
    path = write(
        tmp_path / NAME,
        {"id": TID, "timestamp": "2025-08-11T18:18:33.034Z", "instructions": "# Guidelines",
         "git": {"branch": "master", "commit_hash": "dd5f"}},
        {"record_type": "state"},
        {"type": "message", "id": None, "role": "user", "content": [
            {"type": "input_text", "text": "<user_instructions>be terse</user_instructions>"},
            {"type": "input_text", "text": "<environment_context>\n<cwd>/repo/sinex</cwd>\n</environment_context>"}]},
        {"type": "message", "id": None, "role": "user", "content": [{"type": "input_text", "text": "grok the codebase"}]},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Exploring"}]},
        {"type": "local_shell_call", "call_id": "s1", "status": "completed",
         "action": {"type": "exec", "command": ["bash", "-lc", "ls"], "working_directory": "/repo/sinex"}},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "It is a Rust workspace."}]},
    )
    t = codex.read_transcript(path)
    assert prompts(t) == ["grok the codebase"]
    assert (t.cwd, t.git_branch, t.session_id) == ("/repo/sinex", "master", TID)
    [c] = calls(t)
    assert (c.name, c.command, c.input["workdir"], c.answered) == ("local_shell", "ls", "/repo/sinex", True)


def test_typescript_cli_document_is_read_whole(tmp_path):
    doc = {"session": {"timestamp": "2025-04-20T10:00:00.000Z", "id": TID, "instructions": ""},
           "items": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "add tests"}]},
                     {"type": "function_call", "name": "shell", "call_id": "c", "arguments": '{"command": ["pytest"]}'},
                     {"type": "function_call_output", "call_id": "c", "output": '{"output": "ok", "metadata": {"exit_code": 0}}'},
                     {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]}]}
    path = tmp_path / f"rollout-2025-04-20-{TID}.json"
    path.write_text(json.dumps(doc))
    t = codex.read_transcript(path, start=17)
    assert (t.start, t.end, prompts(t), calls(t)[0].output) == (0, path.stat().st_size, ["add tests"], "ok")
    path.write_text(json.dumps(doc)[:-5])
    torn = codex.read_transcript(path)
    assert (torn.turns, torn.bad_lines) == ([], 1)


def test_fork_skips_the_replayed_parent(tmp_path):
    parent = "019e0000-0000-7000-8000-000000000001"
    fork_time = "2026-05-11T09:00:00.000Z"
    before = "019e1634-0000-7000-8000-000000000000"  # a UUIDv7 minted before the fork
    after = "019e1650-0000-7000-8000-000000000000"
    path = write(
        tmp_path / NAME,
        meta(forked_from_id=parent, timestamp=fork_time, cwd="/fork"),
        meta(parent, cwd="/parent"), {"timestamp": TS, "type": "turn_context", "payload": {"turn_id": before, "cwd": "/parent"}},
        said("parent's words"), answer("parent's answer"),
        event(type="task_started", turn_id=after), said("fork's words"), answer("fork's answer"),
    )
    t = codex.read_transcript(path)
    assert [x.text for x in t.turns] == ["fork's words", "fork's answer"]
    assert t.cwd == "/fork"


def test_subagent_rollout_is_a_sidechain(tmp_path):
    spawn = {"subagent": {"thread_spawn": {"parent_thread_id": "p", "depth": 1}}}
    path = write(tmp_path / NAME, meta(source=spawn), said("inspect the tests"), answer("done"))
    t = codex.read_transcript(path)
    assert all(x.sidechain for x in t.turns) and len(t.turns) == 2


# -- offsets and tolerance -----------------------------------------------------------------------


def test_partial_last_line_waits_and_resume_keeps_the_header(tmp_path):
    head = lines(meta(), said("one"))
    tail = json.dumps(said("two")).encode()
    path = tmp_path / NAME
    path.write_bytes(head + tail[:15])
    t = codex.read_transcript(path)
    assert (t.end, prompts(t)) == (len(head), ["one"])
    path.write_bytes(head + tail + b"\n")
    t2 = codex.read_transcript(path, start=t.end)
    assert (t2.start, t2.end, prompts(t2)) == (len(head), path.stat().st_size, ["two"])
    assert (t2.cwd, t2.git_branch, t2.version, t2.session_id) == ("/work/proj", "feat/x", "0.125.0", TID)


def test_bad_lines_unknown_types_and_wrong_types_never_raise(tmp_path):
    path = tmp_path / NAME
    path.write_bytes(lines(meta()) + b"not json\n" + b"\xff\xfe\x00\n" + lines(
        {"timestamp": TS, "type": "brand_new_kind", "payload": {}},
        event(type="brand_new_event"), item(type="brand_new_item"),
        {"type": ["list"], "payload": {"type": {"x": 1}}},
        event(type={"a": 1}), item(type=None, call_id=["x"]), event(type="exec_command_end", call_id={"x": 1}),
        {"payload": 3}, said("ok")))
    t = codex.read_transcript(path)
    assert prompts(t) == ["ok"]
    assert t.bad_lines == 2
    assert t.skipped >= 4


def test_oversize_line_is_skipped_and_counted(tmp_path):
    huge = item(type="message", role="assistant", content=[{"type": "output_text", "text": "x" * 5000}])
    path = write(tmp_path / NAME, meta(), said("before"), huge, said("after"))
    with open(path, "rb") as f:
        records = RecordRange(f, 0, max_line=1000)
        kinds = [r["type"] for r in records]
    assert kinds == ["session_meta", "event_msg", "event_msg"]
    assert (records.bad_lines, records.oversize, records.end) == (1, 1, path.stat().st_size)


def test_unreadable_file_raises_transcript_error(tmp_path):
    with pytest.raises(TranscriptError, match="cannot read rollout"):
        codex.read_transcript(tmp_path / NAME)
    assert codex.peek_cwd(tmp_path / NAME) is None


# -- compressed rollouts -----------------------------------------------------------------------

def compress(path: Path, data: bytes, frames: int = 1) -> Path:
    zstandard = pytest.importorskip("zstandard")
    cut = len(data) // frames
    chunks = [data[i * cut:(i + 1) * cut if i < frames - 1 else len(data)] for i in range(frames)]
    path.write_bytes(b"".join(zstandard.ZstdCompressor().compress(c) for c in chunks))
    return path


def test_zst_reads_like_the_plain_file_with_decompressed_offsets(tmp_path):
    data = lines(meta(), said("one"), answer("a"), said("two"), call("c", cmd="ls"), output("c", "x"))
    plain = tmp_path / NAME
    plain.write_bytes(data)
    (tmp_path / "z").mkdir()
    packed = compress(tmp_path / "z" / (NAME + ".zst"), data, frames=3)
    whole, zst = codex.read_transcript(plain), codex.read_transcript(packed)
    assert (zst.turns, zst.end, zst.session_id) == (whole.turns, whole.end, whole.session_id)
    middle = len(lines(meta(), said("one"), answer("a")))
    assert codex.read_transcript(packed, start=middle).turns == codex.read_transcript(plain, start=middle).turns
    assert stream_size(packed) == len(data) == stream_size(plain)
    assert codex.peek_cwd(packed) == "/work/proj"


def test_corrupt_zst_is_counted_not_raised(tmp_path):
    path = tmp_path / (NAME + ".zst")
    path.write_bytes(b"definitely not zstd" * 10)
    t = codex.read_transcript(path)
    assert (t.turns, t.bad_lines, t.end) == ([], 1, 0)
    with pytest.raises(TranscriptError, match="cannot decompress"):
        stream_size(path)


def test_zst_without_a_decoder_says_what_to_install(tmp_path, monkeypatch):
    path = compress(tmp_path / (NAME + ".zst"), lines(meta(), said("one")))
    for name in ("zstandard", "compression", "compression.zstd"):
        monkeypatch.setitem(sys.modules, name, None)  # as if not installed: importing it fails
    with pytest.raises(TranscriptError) as caught:
        codex.read_transcript(path)
    assert "pip install 'memgit[zstd]'" in caught.value.message
    assert "\n" not in caught.value.message


# -- discovery ---------------------------------------------------------------------------------


def test_discover_live_archived_plain_and_compressed(tmp_path):
    root = tmp_path / ".codex"
    day = root / "sessions" / "2026" / "05" / "11"
    day.mkdir(parents=True)
    archived = root / "archived_sessions"
    archived.mkdir()
    a, b, c, d = (f"019e1625-0000-7000-8000-00000000000{i}" for i in range(4))
    write(day / f"rollout-2026-05-11T11-00-00-{a}.jsonl", meta(a))
    (day / f"rollout-2026-05-11T11-00-00-{a}.jsonl.zst").write_bytes(b"stale sibling")
    (day / f"rollout-2026-05-11T12-00-00-{b}.jsonl.zst").write_bytes(b"compressed only")
    write(archived / f"rollout-2026-05-10T09-00-00-{c}.jsonl", meta(c))
    old = write(day / f"rollout-2026-05-11T13-00-00-{d}.jsonl", meta(d))
    newer = write(archived / f"rollout-2026-05-11T13-00-00-{d}.jsonl", meta(d))
    os.utime(old, (1000, 1000))
    write(root / "sessions" / f"rollout-2025-04-20-{c[:-1]}9.json", meta(c[:-1] + "9"))
    (day / "history.jsonl").write_text("{}\n")
    (day / "notes.txt").write_text("x")

    found = {f.session_id: f for f in codex.discover(root)}
    assert set(found) == {a, b, c, d, c[:-1] + "9"}
    assert found[a].path.name.endswith(".jsonl") and not found[a].compressed
    assert found[b].compressed and found[b].project_dir == "sessions/2026/05/11"
    assert found[d].path == newer and found[d].project_dir == "archived_sessions"
    assert found[c[:-1] + "9"].whole
    assert {f.agent for f in found.values()} == {"codex"}
    assert found[a].key == f"codex/{a}" and found[a].source == f"sessions/2026/05/11/{found[a].path.name}"
    assert codex.discover(tmp_path / "nowhere") == []


def test_default_root_honours_codex_home(tmp_path):
    assert codex.default_root({"CODEX_HOME": str(tmp_path / "ch"), "HOME": "/h"}) == tmp_path / "ch"
    assert codex.default_root({"HOME": "/h"}) == Path("/h/.codex")


def test_discover_is_fast(tmp_path):
    day = tmp_path / "sessions" / "2026" / "05" / "11"
    day.mkdir(parents=True)
    for i in range(1000):
        (day / f"rollout-2026-05-11T11-00-00-019e1625-0000-7000-8000-{i:012d}.jsonl").write_bytes(b"{}\n")
    began = time.perf_counter()
    found = codex.discover(tmp_path)
    elapsed = time.perf_counter() - began
    assert len(found) == 1000
    assert elapsed < 0.5, f"discover took {elapsed:.3f}s for 1,000 files"


# -- neutral tool kinds and the project's instructions -------------------------------------------


def test_tools_carry_a_neutral_kind(tmp_path):
    patch = "*** Begin Patch\n*** Update File: src/app.ts\n@@\n-a\n+b\n*** End Patch"
    path = write(
        tmp_path / NAME, meta(), said("fix it"),
        call("c1", cmd="pnpm --filter @repo/spectora-labs lint"), output("c1", "ok"),
        call("c2", "shell", command=["bash", "-lc", "ls"]), output("c2", "a"),
        call("c3", "apply_patch", input=patch), output("c3", "Success"),
        item(type="custom_tool_call", name="apply_patch", input=patch, call_id="c4"),
        call("c5", "update_plan", plan=[{"step": "a", "status": "pending"}]),
        call("c6", "mcp__supabase__execute_sql", query="select 1"),
    )
    found = {c.id: c for c in calls(codex.read_transcript(path))}
    assert {k: c.kind for k, c in found.items()} == {
        "c1": "shell", "c2": "shell", "c3": "edit", "c4": "edit", "c5": "todo", "c6": ""}
    assert (found["c1"].command, found["c2"].command) == ("pnpm --filter @repo/spectora-labs lint", "ls")
    assert found["c3"].file_path == found["c4"].file_path == "src/app.ts"  # a function's patch too


@pytest.mark.parametrize("text, rules", [
    # codemie-code 019e1625: the 0.5x shape, the environment context in the same text
    ("# AGENTS.md instructions for /Users/Sample_User/repos/codemie-ai/codemie-code\n\n<INSTRUCTIONS>\n"
     "ALWAYS prefer MCP graph tools over grep/glob/file-search for code discovery.\n</INSTRUCTIONS>\n"
     "<environment_context>\n  <cwd>/work/proj</cwd>\n</environment_context>",
     "ALWAYS prefer MCP graph tools over grep/glob/file-search for code discovery."),
    ("<user_instructions>\n\nUse pnpm, never npm.\n\n</user_instructions>", "Use pnpm, never npm."),
])
def test_agents_md_becomes_one_instructions_turn(tmp_path, text, rules):
    path = write(tmp_path / NAME, meta(), user_item(text), said("fix it"), answer("Fixed."),
                 user_item(text), said("and the test"))  # sent again after a resume: kept once
    t = codex.read_transcript(path)
    assert prompts(t, "instructions") == [rules]
    assert prompts(t) == ["fix it", "and the test"]


# -- where each piece of text came from (texts taken from the fixtures) ------------------------


def test_an_ide_message_is_the_client_s_attachments_then_the_person_s_request(tmp_path):
    vscode = ("# Context from my IDE setup:\n\n## Active file: apps/spectora-labs/src/lib/prisma/db.ts\n\n## Open tabs:\n"
              "- db.ts: apps/spectora-labs/src/lib/prisma/db.ts\n\n## My request for Codex:\nWhy do we need stats for the "
              "team?\n")
    desktop = ("\n# Files mentioned by the user:\n\n## Sample Project Demo Prep.vtt: /Users/Sample_User/Downloads/Sample "
               "Project Demo Prep.vtt\n\n## My request for Codex:\nanalyze trascript and summarzie action items")
    path = write(tmp_path / NAME, meta(), said(vscode), said(desktop),
                 said("<environment_context>\n  <cwd>/work/proj</cwd>\n  <approval_policy>on-request</approval_policy>\n"
                      "  <sandbox_mode>danger-full-access</sandbox_mode>\n  <timezone>Europe/Vilnius</timezone>\n"
                      "</environment_context>"))
    t = codex.read_transcript(path)
    assert [(x.kind, x.origin, x.text.splitlines()[0]) for x in t.turns] == [
        ("harness", "harness", "# Context from my IDE setup:"), ("prompt", "person", "Why do we need stats for the team?"),
        ("harness", "harness", "# Files mentioned by the user:"),
        ("prompt", "person", "analyze trascript and summarzie action items"),
        ("harness", "harness", "<cwd>/work/proj</cwd>")]
    assert not any("approval_policy" in x.text or "Open tabs" in x.text for x in t.turns if x.origin == "person")


def test_bare_rollouts_mark_injected_parts_of_a_user_item(tmp_path):
    header = {"id": TID, "timestamp": "2025-08-11T18:18:33.034Z", "instructions": None}
    path = write(tmp_path / NAME, header, {"record_type": "state"},
                 {"type": "message", "role": "user", "content": [
                     {"type": "input_text", "text": "<environment_context>\n<cwd>/x</cwd>\n</environment_context>"},
                     {"type": "input_text", "text": "I want you to grok the codebase"}]})
    t = codex.read_transcript(path)
    assert [(x.kind, x.origin) for x in t.turns] == [("harness", "harness"), ("prompt", "person")]
    assert prompts(t) == ["I want you to grok the codebase"]


def test_what_the_harness_answers_in_a_tool_s_place_is_never_its_output(tmp_path):
    policy = ("Wall time: 2.4099 seconds\nOutput:\n" + json.dumps([{"type": "text", "text": (
        "Browser Use rejected this action due to browser security policy. Reason: Browser Use cannot determine if "
        "https://example.internal is allowed. Please try again later or use another source.")}]))
    sandbox = ("failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error, exit code: 2, stdout: , "
               "stderr: bash: -c: line 0: syntax error near unexpected token `('")
    path = write(
        tmp_path / NAME, meta(), said("go"),
        item(type="custom_tool_call", name="apply_patch", input="*** Begin Patch\n*** Update File: a.ts\n", call_id="p1"),
        item(type="custom_tool_call_output", call_id="p1", output="patch rejected by user"),
        call("j1", name="js", code="browser.open()"), output("j1", policy),
        call("s1", name="shell", command=["bash", "-lc", "sed -n '1,2p' (x)"]), output("s1", sandbox),
        call("s2", cmd="pytest"), output("s2", "Chunk ID: 1\nWall time: 1 seconds\nProcess exited with code 1\nOutput:\n"
                                               "1 failed: permission to write was denied"),
    )
    patch, browser, shell, tests = calls(codex.read_transcript(path))
    assert (patch.declined, patch.output, patch.is_error, patch.ran, patch.harness) == (
        "", "", False, False, "patch rejected by user")
    assert (browser.output, browser.is_error, browser.ran) == ("", True, False)
    assert browser.harness.startswith("Browser Use rejected this action")
    assert shell.output.startswith("bash: -c: line 0: syntax error") and shell.is_error and shell.ran
    assert shell.harness.startswith("failed in sandbox MacosSeatbelt")
    assert (tests.output, tests.is_error, tests.harness) == ("1 failed: permission to write was denied", True, "")
