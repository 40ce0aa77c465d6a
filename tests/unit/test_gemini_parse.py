"""The Gemini CLI source over small synthetic sessions: replay rules, messages, projects, discovery."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from memgit.errors import TranscriptError
from memgit.sources import gemini
from memgit.sources.gemini.messages import ACK

SID = "2a07c579-1111-4222-8333-444455556666"
PROJECT = "/home/ada/src/shop"
HASH = hashlib.sha256(PROJECT.encode()).hexdigest()


def meta_line(sid: str = SID, **extra) -> dict:
    return {"sessionId": sid, "projectHash": HASH, "startTime": "2026-07-01T10:00:00.000Z",
            "lastUpdated": "2026-07-01T10:00:00.000Z", "kind": "main", **extra}


def user(mid: str, text, **extra) -> dict:
    return {"id": mid, "timestamp": f"2026-07-01T10:00:{len(mid):02d}.000Z", "type": "user", "content": text, **extra}


def model(mid: str, text: str = "", *calls: dict, **extra) -> dict:
    return {"id": mid, "timestamp": "2026-07-01T10:01:00.000Z", "type": "gemini", "content": text,
            "thoughts": [{"subject": "Plan", "description": "…"}], "tokens": None, "model": "gemini-3-pro-preview",
            "toolCalls": list(calls), **extra}


def tool(cid: str, name: str, status: str = "success", output: str | None = "ok", **args) -> dict:
    record = {"id": cid, "name": name, "args": args, "status": status, "timestamp": "2026-07-01T10:01:01.000Z"}
    if output is not None:
        record["result"] = [{"functionResponse": {"id": cid, "name": name, "response": {"output": output}}}]
    return record


def lines(*records) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def chats(root: Path, folder: str = "shop") -> Path:
    path = root / "tmp" / folder / "chats"
    path.mkdir(parents=True, exist_ok=True)
    return path


def session_file(root: Path, *records, folder: str = "shop", name: str = "session-2026-07-01T10-00-2a07c579.jsonl") -> Path:
    path = chats(root, folder) / name
    path.write_bytes(lines(*records))
    return path


def said(t, kind: str = "prompt") -> list[str]:
    return [x.text for x in t.turns if x.role == "user" and x.kind == kind]


# -- replay ------------------------------------------------------------------------------------


def test_jsonl_replay_upserts_in_place_and_rewinds(tmp_path):
    running = model("g1", "", tool("read_file-1", "read_file", status="executing", output=None, file_path="a.ts"))
    done = model("g1", "Read it.", tool("read_file-1", "read_file", output="export {}", file_path="a.ts"))
    path = session_file(
        tmp_path, meta_line(), user("u0", [{"text": "<session_context>\nToday is …\n</session_context>"}]),
        user("u1", [{"text": "fix the import path"}]), {"$set": {"lastUpdated": "2026-07-01T10:00:01.000Z"}},
        running, user("u2", [{"text": "and the tests"}]), done,
        user("u3", "mistake"), model("g3", "on it"), {"$rewindTo": "u3"},
        {"$set": {"summary": "Fix import path in a.ts"}}, user("u4", "run them"),
    )
    t = gemini.read_transcript(path)
    assert [(x.role, x.origin, x.text) for x in t.turns] == [
        ("user", "harness", "Today is …"), ("user", "person", "fix the import path"), ("assistant", "agent", "Read it."),
        ("user", "person", "and the tests"), ("user", "person", "run them")]
    [c] = t.turns[2].tool_calls
    assert (c.id, c.output, c.answered, c.file_path) == ("read_file-1", "export {}", True, "a.ts")
    assert (t.session_id, t.agent, t.title, t.started) == (SID, "gemini-cli", "Fix import path in a.ts",
                                                          "2026-07-01T10:00:00.000Z")
    assert (t.bad_lines, t.skipped, t.end) == (0, 0, path.stat().st_size)


def test_rewind_to_an_unknown_id_drops_everything(tmp_path):
    path = session_file(tmp_path, meta_line(), user("u1", "a"), model("g1", "b"), {"$rewindTo": "nope"}, user("u2", "c"))
    assert said(gemini.read_transcript(path)) == ["c"]


def test_set_messages_keeps_history_and_adds_the_summary(tmp_path):
    snapshot = "<state_snapshot>\n<overall_goal>ship</overall_goal>\n</state_snapshot>"
    path = session_file(
        tmp_path, meta_line(), user("u1", "build the cart"),
        model("g1", "", tool("c1", "run_shell_command", output="big log", command="npm test")),
        {"$set": {"messages": [user("s1", [{"text": snapshot}]), model("s2", ACK),
                               model("g1", "", tool("c1", "run_shell_command", output="<tool_output_masked>…"))]}},
        user("u2", "now the checkout"),
    )
    t = gemini.read_transcript(path)
    assert [(x.role, x.kind) for x in t.turns] == [
        ("user", "prompt"), ("assistant", "message"), ("user", "compact_summary"), ("user", "prompt")]
    assert t.turns[1].tool_calls[0].output == "big log"  # not the masked copy
    assert said(t, "compact_summary") == [snapshot]


def test_incremental_read_takes_messages_first_written_in_range(tmp_path):
    head = lines(meta_line(), user("u1", "one"), model("g1", "", tool("c1", "read_file", status="executing", output=None)))
    path = session_file(tmp_path)
    path.write_bytes(head + b'{"id": "u2", "type": "us')
    first = gemini.read_transcript(path)
    assert (first.end, said(first)) == (len(head), ["one"])
    assert first.turns[1].tool_calls[0].answered is False
    path.write_bytes(head + lines(model("g1", "", tool("c1", "read_file", output="text")), user("u2", "two")))
    rest = gemini.read_transcript(path, start=first.end)
    assert (rest.start, said(rest), [x.role for x in rest.turns]) == (len(head), ["two"], ["user"])
    assert rest.cwd == PROJECT or rest.cwd is None  # the folder layout is here, the marker is not
    again = gemini.read_transcript(path, start=rest.end)
    assert (again.turns, again.end) == ([], rest.end)


def test_legacy_document_is_read_whole(tmp_path):
    doc = {**meta_line(), "messages": [user("u1", "add a color file"), model("g1", "Done.")], "summary": "Colors"}
    path = chats(tmp_path) / "session-2026-01-15T20-51-2a07c579.json"
    path.write_text(json.dumps(doc, indent=2))
    t = gemini.read_transcript(path, start=40)
    assert (t.start, t.end, said(t), t.title, t.bad_lines) == (0, path.stat().st_size, ["add a color file"], "Colors", 0)
    path.write_text(json.dumps(doc, indent=2)[:-30])
    torn = gemini.read_transcript(path)
    assert (torn.turns, torn.bad_lines, torn.session_id) == ([], 1, path.name.split(".")[0])


# -- messages ----------------------------------------------------------------------------------


def test_user_words_commands_hooks_and_tool_responses(tmp_path):
    hook = "<hook_context><memgit-context>old notes</memgit-context></hook_context>"
    path = session_file(
        tmp_path, meta_line(),
        user("u1", [{"text": "@src/a.ts explain"}, {"text": "--- Content from src/a.ts ---\n…"}],
             displayContent=[{"text": "@src/a.ts explain"}]),
        user("u2", [{"text": hook}]), user("u3", [{"text": hook + "\nwhat next?"}]),
        user("u4", "/memory add use pnpm"), user("u5", "/Users/ada/log.txt is broken"),
        model("g1", "", tool("c1", "run_shell_command", status="executing", output=None, command="pnpm test")),
        user("u6", [{"functionResponse": {"id": "c1", "name": "run_shell_command",
                                          "response": {"output": "Command: pnpm test\nOutput: 1 failed\nExit Code: 1"}}}]),
        model("g2", [{"text": "thinking…", "thought": True}, {"text": "One test fails."}],
              tool("c2", "replace", status="error", output=None, file_path="a.ts")),
        model("g3", "", tool("c3", "write_file", status="cancelled", output=None, file_path="b.ts")),
        {"id": "i1", "type": "info", "content": "Gemini CLI update available!"},
        {"id": "x1", "type": "brand_new", "content": "?"},
    )
    t = gemini.read_transcript(path)
    assert said(t) == ["@src/a.ts explain", "what next?", "/Users/ada/log.txt is broken"]
    assert said(t, "command") == ["/memory add use pnpm"]
    assert t.injected == 2
    shell, edit, write = (c for x in t.turns for c in x.tool_calls)
    assert (shell.command, shell.answered, shell.is_error) == ("pnpm test", True, True)
    assert (edit.answered, edit.is_error) == (True, True)
    # cancelled: the person turned the call down (or pressed Esc); the answer is the harness's, not the tool's
    assert (write.answered, write.is_error, write.output, write.declined, write.ran) == (True, False, "", "", False)
    assert [x.text for x in t.turns if x.role == "assistant"] == ["", "One test fails.", ""]
    assert t.skipped == 1


def test_subagent_sessions_fold_into_their_parent(tmp_path):
    parent = session_file(tmp_path, meta_line(), user("u1", "investigate"), model("g1", "ok"))
    sub = chats(tmp_path) / SID
    sub.mkdir()
    (sub / "b7c0e4f2-aaaa-4bbb-8ccc-ddddeeeeffff.jsonl").write_bytes(lines(
        meta_line("b7c0e4f2-aaaa-4bbb-8ccc-ddddeeeeffff", kind="subagent"),
        user("s1", "Your task: list the services"), model("s2", "", tool("c9", "list_directory", dir_path="/x"))))
    t = gemini.read_transcript(parent)
    assert t.subagents == 1
    assert [x.sidechain for x in t.turns] == [False, False, True, True]
    assert [f.path for f in gemini.discover(tmp_path)] == [parent]  # the subagent file is folded, not listed
    alone = gemini.read_transcript(sub / "b7c0e4f2-aaaa-4bbb-8ccc-ddddeeeeffff.jsonl")
    assert all(x.sidechain for x in alone.turns)


# -- the project path --------------------------------------------------------------------------


def test_project_root_from_marker_registry_or_hash(tmp_path):
    path = session_file(tmp_path, meta_line(), user("u1", "hi"))
    assert gemini.read_transcript(path).cwd is None  # nothing to go by yet
    (tmp_path / "projects.json").write_text(json.dumps({"projects": {"/elsewhere/shop": "shop"}}))
    assert gemini.peek_cwd(path) == "/elsewhere/shop"
    (path.parent.parent / ".project_root").write_text(PROJECT + "\n")
    assert gemini.peek_cwd(path) == PROJECT  # Gemini's own marker beats the registry

    hashed = session_file(tmp_path, meta_line(), user("u1", "hi"),
                          model("g1", "", tool("c1", "read_file", file_path=PROJECT + "/src/deep/a.ts")), folder=HASH)
    assert gemini.read_transcript(hashed).cwd == PROJECT  # sha256 of a parent of a path the tools saw


def test_unreadable_file_raises_transcript_error(tmp_path):
    with pytest.raises(TranscriptError, match="cannot read Gemini session"):
        gemini.read_transcript(tmp_path / "session-x.jsonl")
    assert gemini.peek_cwd(tmp_path / "session-x.jsonl") is None


def test_session_id_is_never_used_as_a_path(tmp_path):
    outside = tmp_path / "tmp" / "shop" / "outside"
    outside.mkdir(parents=True)
    (outside / "x.jsonl").write_bytes(lines(meta_line("z"), user("s", "leak")))
    path = session_file(tmp_path, meta_line("../outside"), user("u1", "hi"))
    t = gemini.read_transcript(path)
    assert (t.subagents, said(t)) == (0, ["hi"])


# -- discovery ---------------------------------------------------------------------------------


def test_discover_dedupes_resumed_and_migrated_sessions(tmp_path):
    legacy = chats(tmp_path) / "session-2026-01-15T20-51-2a07c579.json"
    legacy.write_text(json.dumps({**meta_line(), "messages": []}, indent=2))
    resumed = session_file(tmp_path, meta_line(), name="session-2026-01-15T20-51-2a07c579.jsonl")
    old_copy = session_file(tmp_path, meta_line(), folder=HASH, name="session-2026-01-15T20-51-2a07c579.jsonl")
    os.utime(old_copy, (1000, 1000))
    other = session_file(tmp_path, meta_line("99999999-1111-4222-8333-444455556666"),
                         name="session-2026-01-16T08-00-99999999.jsonl")
    (chats(tmp_path) / "session-broken.json").write_text("{")
    (chats(tmp_path) / "logs.json").write_text("[]")
    (chats(tmp_path) / "session-x.jsonl.unreadable-17").write_text("")

    found = {f.session_id: f for f in gemini.discover(tmp_path)}
    assert set(found) == {SID, "99999999-1111-4222-8333-444455556666", "broken"}
    assert found[SID].path == resumed and not found[SID].whole
    assert found["99999999-1111-4222-8333-444455556666"].path == other
    assert found["broken"].whole and found[SID].project_dir == "shop"
    assert found[SID].key == f"gemini-cli/{SID}"
    assert legacy.exists() and gemini.discover(tmp_path / "nowhere") == []


def test_default_root_honours_gemini_cli_home(tmp_path):
    assert gemini.default_root({"GEMINI_CLI_HOME": str(tmp_path), "HOME": "/h"}) == tmp_path / ".gemini"
    assert gemini.default_root({"HOME": "/h"}) == Path("/h/.gemini")


# -- neutral tool kinds; a shell result as what the command printed ------------------------------

# entire-cli ab_2b9748b105 (Gemini CLI 0.23): run_shell_command's result, field by field
SHELL_RESULT = ("Command: ls -l docs/blue.md\nDirectory: (root)\n"
                "Output: -rw-r--r--@ 1 peytonmontei  staff  309 Jan 15 12:51 docs/blue.md\nError: (none)\n"
                "Exit Code: 0\nSignal: 0\nBackground PIDs: (none)\nProcess Group PGID: 26593")


@pytest.mark.parametrize("result, printed", [
    (SHELL_RESULT, "-rw-r--r--@ 1 peytonmontei  staff  309 Jan 15 12:51 docs/blue.md"),
    ("Command: rm docs/blue.md\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 0\nSignal: 0\n"
     "Background PIDs: (none)\nProcess Group PGID: 27431", ""),
    ("Command: npm test\nDirectory: (root)\nOutput: Error: 2 failed\nsee above\nError: (none)\nExit Code: 1\n"
     "Signal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 4242", "Error: 2 failed\nsee above"),
    ("Command: ls x\nDirectory: (root)\nOutput: (empty)\nError: ls: x: No such file\nExit Code: 1",
     "ls: x: No such file"),
    ("plain text of a later release", "plain text of a later release"),
])
def test_shell_output_keeps_what_the_command_printed(result, printed):
    from memgit.sources.gemini.messages import shell_output

    assert shell_output(result) == printed


def test_tools_carry_a_neutral_kind_and_file_path(tmp_path):
    failing = SHELL_RESULT.replace("Exit Code: 0", "Exit Code: 2")
    path = session_file(tmp_path, meta_line(), user("u1", "make docs"), model(
        "m1", "",
        tool("s1", "run_shell_command", output=SHELL_RESULT, command="ls -l docs/blue.md"),
        tool("s2", "run_shell_command", output=failing, command="ls -l docs/blue.md"),
        tool("w1", "write_file", file_path="docs/blue.md", content="# Blue"),
        tool("r1", "read_file", absolute_path="/home/ada/src/shop/docs/color.md"),
        tool("d1", "delegate_to_agent", agent_name="codebase_investigator", objective="find issues"),
        tool("x1", "some_mcp_tool"),
    ))
    found = {c.id: c for x in gemini.read_transcript(path).turns for c in x.tool_calls}
    assert {k: c.kind for k, c in found.items()} == {
        "s1": "shell", "s2": "shell", "w1": "edit", "r1": "read", "d1": "subagent", "x1": ""}
    assert (found["s1"].is_error, found["s2"].is_error) == (False, True)  # the exit code, read before the cut
    assert "PGID" not in found["s1"].output and found["s1"].command == "ls -l docs/blue.md"
    assert found["r1"].file_path == "/home/ada/src/shop/docs/color.md"


def test_a_subagent_report_is_read_out_as_prose():
    from memgit.sources.gemini.messages import report_text

    # 37b7abef (codemie-code): delegate_to_agent's result, shortened
    result = {"SummaryOfFindings": "The encryption key is derived from machine-specific information.",
              "ExplorationTrace": ["read_file(\"src/utils/security.ts\")"],
              "RelevantLocations": [{"FilePath": "src/agents/registry.ts",
                                     "Reasoning": "Hardcoded plugin registration limits adaptability.",
                                     "KeySymbols": ["AgentRegistry"]}]}
    text = "Subagent 'codebase_investigator' finished.\nTermination Reason: GOAL\nResult:\n" + json.dumps(result, indent=2)
    assert report_text(text) == ("The encryption key is derived from machine-specific information.\n\n"
                                 "src/agents/registry.ts: Hardcoded plugin registration limits adaptability.")
    assert report_text("plain words") == "plain words"


# -- where each piece of text came from ---------------------------------------------------------


def test_harness_text_in_a_user_message_is_marked_and_the_person_s_words_kept(tmp_path):
    referenced = ("Read this repo. Check @quantize.py against it.\n--- Content from referenced files ---\n"
                  "Content from @quantize.py:\ndef pack(): ...\n--- End of content ---")
    path = session_file(
        tmp_path, meta_line(),
        user("u0", [{"text": "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n"
                             "Today's date is Friday.\n</session_context>"}]),
        user("u1", [{"text": "<hook_context>clmail 6.0.10 session registered</hook_context>"},
                    {"text": "expore repository and figure out issues"}]),
        user("u2", referenced),
    )
    t = gemini.read_transcript(path)
    assert [(x.kind, x.origin, x.text.splitlines()[0]) for x in t.turns] == [
        ("harness", "harness", "This is the Gemini CLI. We are setting up the context for our chat."),
        ("harness", "harness", "clmail 6.0.10 session registered"),
        ("prompt", "person", "expore repository and figure out issues"),
        ("harness", "harness", "--- Content from referenced files ---"),
        ("prompt", "person", "Read this repo. Check @quantize.py against it.")]


def test_a_cancelled_or_refused_call_has_the_harness_s_answer_not_an_output(tmp_path):
    def refused(cid, name, error, status="error"):
        record = tool(cid, name, status=status, output=None)
        record["result"] = [{"functionResponse": {"id": cid, "name": name, "response": {"error": error}}}]
        return record

    path = session_file(
        tmp_path, meta_line(), user("u1", "fix it"),
        model("g1", "", refused("c1", "run_shell_command", "[Operation Cancelled] Reason: User denied execution.",
                                status="cancelled"),
              refused("c2", "replace", "[Operation Cancelled] Reason: User did not allow tool call"),
              refused("c3", "run_shell_command", "Tool execution denied by policy."),
              refused("c4", "read_file", "File not found: /x/a.ts")),
    )
    c1, c2, c3, c4 = (c for x in gemini.read_transcript(path).turns for c in x.tool_calls)
    for declined in (c1, c2):
        assert (declined.declined, declined.output, declined.is_error, declined.ran) == ("", "", False, False)
        assert declined.harness.startswith("[Operation Cancelled]")
    assert (c3.output, c3.is_error, c3.ran, c3.harness) == ("", True, False, "Tool execution denied by policy.")
    assert (c4.output, c4.is_error, c4.ran, c4.harness) == ("File not found: /x/a.ts", True, True, "")
