"""Claude Code parsing over small synthetic transcripts written by each test."""

from __future__ import annotations

import copy
import itertools
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memgit.errors import TranscriptError
from memgit.core.model import USER_KINDS
from memgit.sources.claude_code.reader import AGENT, discover, peek_cwd, projects_dir, read_transcript

ROOT = Path(__file__).resolve().parents[2]
_ids = itertools.count(1)


def _envelope(kind: str, **fields) -> dict:
    n = next(_ids)
    record = {"type": kind, "uuid": f"u-{n}", "sessionId": "s1", "cwd": "/work/app",
              "gitBranch": "main", "version": "2.1.7", "timestamp": f"2026-01-01T00:00:{n % 60:02d}.000Z"}
    record.update(fields)
    return record


def user(content, **fields) -> dict:
    return _envelope("user", message={"role": "user", "content": content}, **fields)


def assistant(message_id: str, *blocks: dict, **fields) -> dict:
    message = {"id": message_id, "role": "assistant", "model": "claude-x", "content": list(blocks)}
    return _envelope("assistant", message=message, **fields)


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def tool_use(call_id: str, name: str, **inputs) -> dict:
    return {"type": "tool_use", "id": call_id, "name": name, "input": inputs}


def tool_result(call_id: str, content, is_error: bool = False) -> dict:
    return {"type": "tool_result", "tool_use_id": call_id, "content": content, "is_error": is_error}


def lines(*records: dict) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def write(path: Path, *records: dict, tail: bytes = b"") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(lines(*records) + tail)
    return path


def user_texts(transcript, kind: str = "prompt") -> list[str]:
    return [t.text for t in transcript.turns if t.role == "user" and t.kind == kind]


# -- offsets and tolerance ---------------------------------------------------------------------


def test_partial_last_line_is_not_consumed_until_complete(tmp_path):
    first = lines(user("hello"))
    partial = json.dumps(user("second prompt")).encode()
    path = tmp_path / "s.jsonl"
    path.write_bytes(first + partial[:20])

    t = read_transcript(path)
    assert (t.end, t.bad_lines, user_texts(t)) == (len(first), 0, ["hello"])

    path.write_bytes(first + partial + b"\n")
    t2 = read_transcript(path, start=t.end)
    assert (t2.start, t2.end, user_texts(t2)) == (len(first), path.stat().st_size, ["second prompt"])


def test_complete_last_line_without_newline_is_consumed(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(lines(user("one")) + json.dumps(user("two")).encode())
    t = read_transcript(path)
    assert t.end == path.stat().st_size
    assert user_texts(t) == ["one", "two"]


def test_reading_again_from_the_end_yields_nothing(tmp_path):
    path = write(tmp_path / "s.jsonl", user("one"), assistant("m1", text("hi")))
    t = read_transcript(path)
    again = read_transcript(path, start=t.end)
    assert (again.start, again.end, again.turns, again.records) == (t.end, t.end, [], 0)


def test_bad_line_is_skipped_and_counted(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(lines(user("before")) + b"not json at all\n\n" + lines(user("after")))
    t = read_transcript(path)
    assert t.bad_lines == 1
    assert user_texts(t) == ["before", "after"]
    assert t.end == path.stat().st_size


def test_two_objects_on_one_line_are_both_read(tmp_path):
    a, b = json.dumps(user("glued one")), json.dumps({"type": "summary", "summary": "T", "leafUuid": "x"})
    path = tmp_path / "s.jsonl"
    path.write_bytes((a + b + "\n").encode() + lines(user("next")))
    t = read_transcript(path)
    assert t.bad_lines == 0
    assert t.records == 3
    assert user_texts(t) == ["glued one", "next"]


def test_unknown_types_fields_and_blocks_are_skipped(tmp_path):
    path = write(
        tmp_path / "s.jsonl",
        {"type": "mode", "mode": "normal"},
        user([{"type": "mystery", "x": 1}, text("real words")], brandNew={"a": 1}),
        assistant("m1", {"type": "server_tool_use", "id": "z"}, text("answer")),
        {"no_type": True},
    )
    t = read_transcript(path)
    assert [(x.role, x.text) for x in t.turns] == [("user", "real words"), ("assistant", "answer")]


def _paths(value, prefix=()):
    yield prefix
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        yield from _paths(child, prefix + (key,))


def _replaced(record: dict, path: tuple, new) -> dict:
    record = copy.deepcopy(record)
    parent = record
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = new
    return record


def test_fields_of_the_wrong_type_never_raise(tmp_path):
    templates = [
        user("hi <command-name>/x</command-name>", isCompactSummary=False),
        user([text("hi"), {"type": "image", "source": {"data": "x"}}, tool_result("t1", [text("out")])],
             toolUseResult={"agentId": "a1"}),
        assistant("m1", text("a"), tool_use("t1", "Bash", command="ls")),
        {"type": "summary", "summary": "s", "leafUuid": "u"},
        {"type": "queue-operation", "operation": "enqueue", "content": [text("q")]},
        {"type": "ai-title", "aiTitle": "x"},
    ]
    wrong = [None, 1, True, "x", [], {}, [1], {"a": 1}, [{"type": "text"}]]
    records = [_replaced(t, p, w) for t in templates for p in list(_paths(t))[1:] for w in wrong]
    deep = ("[" * 100_000 + "]" * 100_000).encode()
    path = tmp_path / "s.jsonl"
    path.write_bytes(lines(*templates, *records) + deep + b"\n")
    t = read_transcript(path)
    assert t.records == len(templates) + len(records)
    assert t.bad_lines == 1 and t.end == path.stat().st_size


def test_unreadable_file_raises_transcript_error(tmp_path):
    with pytest.raises(TranscriptError):
        read_transcript(tmp_path / "missing.jsonl")


# -- assistant turns and tools ------------------------------------------------------------------


def test_assistant_records_are_grouped_by_message_id(tmp_path):
    path = write(
        tmp_path / "s.jsonl",
        user("do it"),
        assistant("m1", {"type": "thinking", "thinking": "secret musing", "signature": "sig"}),
        assistant("m1", text("First part.")),
        assistant("m1", tool_use("t1", "Bash", command="ls")),
        assistant("m1", text("Second part.")),
        assistant("m2", text("Other message.")),
    )
    t = read_transcript(path)
    turns = [x for x in t.turns if x.role == "assistant"]
    assert [x.text for x in turns] == ["First part.\n\nSecond part.", "Other message."]
    assert [c.name for c in turns[0].tool_calls] == ["Bash"]
    assert all("secret musing" not in x.text for x in t.turns)


def test_tool_results_pair_with_their_calls(tmp_path):
    path = write(
        tmp_path / "s.jsonl",
        user("go"),
        assistant("m1", tool_use("t1", "Bash", command="make test")),
        assistant("m1", tool_use("t2", "Read", file_path="/x.py")),
        assistant("m1", tool_use("t3", "Bash", command="sleep 100")),
        user([tool_result("t1", "3 passed")], toolUseResult={"stdout": "3 passed", "stderr": ""}),
        user([tool_result("t2", [text("file body")], is_error=True)]),
        user([text("[Request interrupted by user for tool use]")]),
    )
    calls = {c.id: c for x in read_transcript(path).turns for c in x.tool_calls}
    assert (calls["t1"].output, calls["t1"].is_error, calls["t1"].answered) == ("3 passed", False, True)
    assert (calls["t2"].output, calls["t2"].is_error, calls["t2"].answered) == ("file body", True, True)
    assert (calls["t3"].output, calls["t3"].answered) == ("", False)
    assert calls["t1"].command == "make test"
    assert [calls[t].kind for t in ("t1", "t2", "t3")] == ["shell", "read", "shell"]
    assert calls["t1"].declined is None


def test_a_call_the_person_turned_down_carries_their_words(tmp_path):
    refusal = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a "
               "file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\n"
               "keep the old name, the CI scripts call it")
    path = write(
        tmp_path / "s.jsonl",
        user("rename the script"),
        assistant("m1", tool_use("t1", "Edit", file_path="/x.py")),
        user([tool_result("t1", refusal, is_error=True)]),
        assistant("m2", tool_use("t2", "ExitPlanMode", plan="do it")),
        user([tool_result("t2", "The user doesn't want to proceed with this tool use.", is_error=True)]),
    )
    calls = {c.id: c for x in read_transcript(path).turns for c in x.tool_calls}
    assert calls["t1"].declined == "keep the old name, the CI scripts call it" and calls["t1"].kind == "edit"
    assert calls["t2"].declined == "" and calls["t2"].kind == "plan"


def test_long_tool_output_and_inputs_are_trimmed_and_images_dropped(tmp_path):
    big = "A" * 10_000 + "MIDDLE" + "Z" * 10_000
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo" * 5000}}
    path = write(
        tmp_path / "s.jsonl",
        user([image, text("look at this")]),
        assistant("m1", tool_use("t1", "Write", file_path="/a.txt", content=big)),
        assistant("m1", tool_use("t2", "Read", file_path="/shot.png")),
        user([tool_result("t1", big)]),
        user([tool_result("t2", [image])]),
    )
    t = read_transcript(path)
    calls = {c.id: c for x in t.turns for c in x.tool_calls}
    assert len(calls["t1"].output) < 3_200 and "MIDDLE" not in calls["t1"].output
    assert "chars trimmed" in calls["t1"].output
    assert calls["t1"].output.startswith("A" * 1500) and calls["t1"].output.endswith("Z" * 1500)
    assert len(calls["t1"].input["content"]) < 2_200
    assert calls["t1"].input["file_path"] == "/a.txt"
    assert calls["t2"].output == "[image]"
    assert user_texts(t) == ["[image]\nlook at this"]
    assert all("iVBORw0KGgo" not in x.text for x in t.turns)


def test_synthetic_and_api_error_assistant_messages_are_dropped(tmp_path):
    synthetic = assistant("m9", text("No response requested."))
    synthetic["message"]["model"] = "<synthetic>"
    path = write(
        tmp_path / "s.jsonl",
        user("hi"),
        synthetic,
        assistant("m8", text("API Error: 500 overloaded"), isApiErrorMessage=True, error="unknown"),
        assistant("m1", text("Hello!")),
    )
    assert [x.text for x in read_transcript(path).turns if x.role == "assistant"] == ["Hello!"]


# -- user turns -------------------------------------------------------------------------------


def test_user_turn_kinds(tmp_path):
    path = write(
        tmp_path / "s.jsonl",
        user("<command-name>/review</command-name>\n<command-message>review</command-message>\n"
             "<command-args>the auth module</command-args>"),
        user("<local-command-stdout>Reviewed.</local-command-stdout>"),
        user("<bash-input>git status</bash-input>"),
        user("<bash-stdout>clean</bash-stdout><bash-stderr></bash-stderr>"),
        user([text("[Request interrupted by user]")]),
        user("Please fix the flaky test"),
        user("This session is being continued from a previous conversation that ran out of context. "
             + "Summary: " + "s" * 20_000),
        user("Anything at all", isCompactSummary=True),
    )
    t = read_transcript(path)
    got = [(x.kind, x.origin, x.text[:40]) for x in t.turns]
    assert got == [
        ("command", "person", "/review the auth module"),
        ("harness", "harness", "Reviewed."),
        ("command", "person", "!git status"),
        ("harness", "harness", "clean"),
        ("interrupt", "harness", "[Request interrupted by user]"),
        ("prompt", "person", "Please fix the flaky test"),
        ("compact_summary", "agent", "This session is being continued from a p"),
        ("compact_summary", "agent", "Anything at all"),
    ]
    assert len(t.turns[6].text) > 20_000  # compaction summaries are prime input: never trimmed
    assert all(x.kind in USER_KINDS for x in t.turns)


def test_harness_text_is_not_user_text(tmp_path):
    path = write(
        tmp_path / "s.jsonl",
        user("<local-command-caveat>Caveat: The messages below were generated…</local-command-caveat>", isMeta=True),
        user("Skill body injected by the harness", isMeta=True),
        user("<system-reminder>Be careful.</system-reminder>\nrename the module"),
        user([text("<ide_opened_file>The user opened x.py</ide_opened_file>"), text("and add tests")]),
        _envelope("attachment", attachment={"type": "hook_additional_context", "content": ["hook words"]}),
        _envelope("system", subtype="stop_hook_summary", content="hook ran"),
        _envelope("progress", data={"type": "agent_progress", "message": {"type": "user", "message": {
            "role": "user", "content": "copied subagent words"}}}),
        {"type": "file-history-snapshot", "messageId": "x", "snapshot": {}},
        {"type": "permission-mode", "permissionMode": "plan", "sessionId": "s1"},
        {"type": "last-prompt", "lastPrompt": "rename the module", "sessionId": "s1"},
    )
    t = read_transcript(path)
    assert [(x.role, x.kind, x.text) for x in t.turns] == [
        ("user", "harness", "Caveat: The messages below were generated…"),
        ("user", "harness", "Skill body injected by the harness"),
        ("user", "harness", "Be careful."),
        ("user", "prompt", "rename the module"),
        ("user", "harness", "The user opened x.py"),
        ("user", "prompt", "and add tests"),
    ]  # hooks' attachments, system records and progress copies are no turn at all
    assert [x.text for x in t.turns if x.origin == "person"] == ["rename the module", "and add tests"]


def test_memgit_injected_context_is_dropped_and_counted(tmp_path):
    injected = "<memgit-context source=\"memgit\">\nProject memory: use uv.\n</memgit-context>"
    path = write(tmp_path / "s.jsonl", user(injected), user([text(injected)]), user("real question"))
    t = read_transcript(path)
    assert t.injected == 2
    assert user_texts(t) == ["real question"]
    assert all("Project memory" not in x.text for x in t.turns)


def test_queued_prompt_is_kept_once(tmp_path):
    path = write(
        tmp_path / "s.jsonl",
        user("start"),
        {"type": "queue-operation", "operation": "enqueue", "timestamp": "2026-01-01T00:01:00.000Z",
         "content": "also update the docs"},
        {"type": "queue-operation", "operation": "dequeue", "timestamp": "2026-01-01T00:01:01.000Z"},
        user("also update the docs"),
        {"type": "queue-operation", "operation": "enqueue", "content": [text("never delivered")]},
        {"type": "queue-operation", "operation": "remove"},
    )
    t = read_transcript(path)
    assert [(x.kind, x.text) for x in t.turns] == [
        ("prompt", "start"), ("prompt", "also update the docs"), ("queued", "never delivered")]


def test_a_record_written_twice_is_read_once(tmp_path):
    record = user("only once")
    path = write(tmp_path / "s.jsonl", record, assistant("m1", text("ok")), record)
    assert user_texts(read_transcript(path)) == ["only once"]


# -- metadata ---------------------------------------------------------------------------------


def test_metadata_comes_from_the_records(tmp_path):
    first = user("hi", cwd="/real/cwd", gitBranch="HEAD", version="2.0.1", timestamp="2026-02-01T10:00:00.000Z")
    later = user("more", cwd="/elsewhere", gitBranch="feature/x", timestamp="2026-02-01T11:00:00+01:00")
    path = write(tmp_path / "-some-encoded-dir" / "abc.jsonl", {"type": "summary", "summary": "x", "leafUuid": "?"},
                 first, later)
    t = read_transcript(path)
    assert (t.session_id, t.agent, t.ledger_id) == ("abc", "claude-code", "claude-code/abc")
    assert (t.cwd, t.git_branch, t.version) == ("/real/cwd", "feature/x", "2.0.1")
    assert (t.started, t.ended) == ("2026-02-01T10:00:00.000Z", "2026-02-01T10:00:00Z")
    assert read_transcript(path, session_id="other").session_id == "other"


def test_title_from_own_summary_or_ai_title(tmp_path):
    prompt = user("hi")
    own = {"type": "summary", "summary": "Own title", "leafUuid": prompt["uuid"]}
    other = {"type": "summary", "summary": "Another session", "leafUuid": "elsewhere"}
    assert read_transcript(write(tmp_path / "a.jsonl", own, other, prompt)).title == "Own title"
    assert read_transcript(write(tmp_path / "b.jsonl", other, prompt)).title is None
    ai = {"type": "ai-title", "aiTitle": "AI title", "sessionId": "s1"}
    assert read_transcript(write(tmp_path / "c.jsonl", prompt, ai, own)).title == "AI title"


# -- subagents --------------------------------------------------------------------------------


def _task_session(project: Path, agent_id: str) -> Path:
    return write(
        project / "s1.jsonl",
        user("investigate"),
        assistant("m1", tool_use("t1", "Task", prompt="look around", description="explore")),
        user([tool_result("t1", [text("found it")])], toolUseResult={"status": "completed", "agentId": agent_id}),
        assistant("m2", text("Done.")),
    )


def test_new_layout_subagent_is_folded_once(tmp_path):
    project = tmp_path / "proj"
    main = _task_session(project, "a1")
    write(project / "s1" / "subagents" / "agent-a1.jsonl",
          user("look around", isSidechain=True, agentId="a1"),
          assistant("sm1", text("sub answer"), isSidechain=True))
    write(project / "s1" / "subagents" / "agent-a2.jsonl", user("unreferenced task", isSidechain=True))

    t = read_transcript(main)
    assert t.subagents == 2
    side = [(x.role, x.kind, x.text) for x in t.turns if x.sidechain]
    assert side == [("user", "prompt", "look around"), ("assistant", "message", "sub answer"),
                    ("user", "prompt", "unreferenced task")]
    assert t.turns[-3].sidechain and not t.turns[0].sidechain  # appended after the parent's turns

    # A later range folds only what its Task results reference.
    after_first_line = main.read_bytes().index(b"\n") + 1
    assert read_transcript(main, start=after_first_line).subagents == 1


def test_old_layout_subagents_linked_by_session_id(tmp_path):
    project = tmp_path / "proj"
    main = _task_session(project, "0000aaaa")
    write(project / "agent-0000aaaa.jsonl", user("look around", isSidechain=True, sessionId="s1"))
    write(project / "agent-0000bbbb.jsonl", user("Warmup", isSidechain=True, sessionId="s1"),
          assistant("w1", text("Ready to help."), isSidechain=True, sessionId="s1"))
    write(project / "agent-0000cccc.jsonl", user("linked later", isSidechain=True, sessionId="s1"))
    write(project / "agent-0000dddd.jsonl", user("orphan of another session", isSidechain=True, sessionId="s9"))

    t = read_transcript(main)
    assert t.subagents == 2
    assert [x.text for x in t.turns if x.sidechain] == ["look around", "linked later"]
    assert [s.session_id for s in discover(tmp_path)] == ["s1"]


def test_an_agent_id_is_never_used_as_a_path(tmp_path):
    project = tmp_path / "proj"
    write(tmp_path / "agent-x.jsonl", user("outside the project", isSidechain=True, sessionId="other"))
    main = _task_session(project, "../../../agent-x")  # proj/agent-../../../ is tmp_path
    (project / "agent-..").mkdir()
    assert read_transcript(main).subagents == 0


def test_empty_parent_folds_nothing(tmp_path):
    project = tmp_path / "proj"
    (project / "s1.jsonl").parent.mkdir(parents=True)
    (project / "s1.jsonl").write_bytes(b"")
    write(project / "s1" / "subagents" / "agent-a1.jsonl", user("orphan", isSidechain=True))
    t = read_transcript(project / "s1.jsonl")
    assert (t.turns, t.subagents) == ([], 0)


# -- discovery --------------------------------------------------------------------------------


def test_discover_lists_main_transcripts_only(tmp_path):
    root = projects_dir(tmp_path / ".claude")
    assert root == tmp_path / ".claude" / "projects"
    assert discover(root) == []
    write(root / "-home-me-app" / "s2.jsonl", user("x"))
    (root / "-home-me-app" / "s1.jsonl").write_bytes(b"")
    write(root / "-home-me-app" / "agent-1234abcd.jsonl", user("sub"))
    write(root / "-home-me-app" / "s2" / "subagents" / "agent-a1.jsonl", user("sub"))
    (root / "-home-me-app" / "notes.txt").write_text("x")
    (root / "stray.jsonl").write_text("{}\n")
    write(root / "-home-me-lib" / "s3.jsonl", user("y"))

    found = discover(root)
    assert [(s.project_dir, s.session_id) for s in found] == [
        ("-home-me-app", "s1"), ("-home-me-app", "s2"), ("-home-me-lib", "s3")]
    assert found[0].size == 0 and found[1].size == (root / "-home-me-app" / "s2.jsonl").stat().st_size
    assert found[1].path == root / "-home-me-app" / "s2.jsonl" and found[1].mtime > 0


def test_discover_is_fast(tmp_path):
    for p in range(10):
        project = tmp_path / f"-p{p}"
        project.mkdir()
        for s in range(100):
            (project / f"{s:08d}-session.jsonl").write_bytes(b"{}\n")
    began = time.perf_counter()
    found = discover(tmp_path)
    elapsed = time.perf_counter() - began
    assert len(found) == 1000
    assert elapsed < 0.5, f"discover took {elapsed:.3f}s for 1,000 files"


# -- memory -----------------------------------------------------------------------------------

_RSS_CHILD = """
import resource, sys
from pathlib import Path
from memgit.sources.claude_code.reader import read_transcript
t = read_transcript(Path(sys.argv[1]))
assert t.end == Path(sys.argv[1]).stat().st_size, (t.end, t.bad_lines)
peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:  # Linux carries the parent's peak into ru_maxrss across fork+exec; VmHWM is this process's own
    with open("/proc/self/status") as status:
        peak_kb = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
except OSError:
    pass
print(peak_kb, len(t.turns))
"""


def test_a_50mb_transcript_reads_in_bounded_memory(tmp_path):
    path = tmp_path / "big.jsonl"
    output = "line of build output\n" * 10_000  # ~210 KB, twice per tool result (content + toolUseResult)
    with open(path, "wb") as f:
        for i in range(115):
            f.write(lines(
                user(f"prompt {i}"),
                assistant(f"m{i}", tool_use(f"t{i}", "Bash", command="make"),
                          tool_use(f"w{i}", "Write", file_path="/f", content="x" * 5_000)),
                user([tool_result(f"t{i}", output)], toolUseResult={"stdout": output, "stderr": ""}),
            ))
    size = path.stat().st_size
    assert size > 50_000_000
    child = subprocess.run([sys.executable, "-c", _RSS_CHILD, str(path)], capture_output=True,
                           text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT)}, timeout=60)
    assert child.returncode == 0, child.stderr
    peak_kb, turns = map(int, child.stdout.split())
    assert turns == 230
    assert peak_kb < 200 * 1024, f"peak RSS {peak_kb / 1024:.0f} MB reading {size / 1e6:.0f} MB"


def test_peek_cwd_reads_only_the_head(tmp_path):
    summaries = [{"type": "summary", "summary": f"t{i}", "leafUuid": "x"} for i in range(20)]
    path = write(tmp_path / "s.jsonl", *summaries, user("hi", cwd="/from/records"))
    assert peek_cwd(path) == "/from/records"
    assert peek_cwd(path, max_records=5) is None
    assert peek_cwd(tmp_path / "missing.jsonl") is None
    assert AGENT == "claude-code"


def test_memgit_context_printed_by_a_tool_is_dropped_from_its_output(tmp_path):
    from memgit.sources.claude_code.synthetic import SessionWriter

    w = SessionWriter("f00dcafe-0000-4000-8000-000000000001", "/home/u/dev/app")
    w.user("What does memgit know about this project?")
    w.bash("memgit context", '<memgit-context source="memgit" kind="reference-data">\n'
           "- [preference] Never use tabs.\n</memgit-context>\n(1,234 characters)")
    path = w.write(tmp_path)
    transcript = read_transcript(path)
    [call] = [c for t in transcript.turns for c in t.tool_calls]
    assert "Never use tabs" not in call.output and "(1,234 characters)" in call.output


# -- where each piece of text came from (texts taken from the fixtures) ------------------------

REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, "
            "the new_string was NOT written to the file). ")


def _calls(path: Path) -> dict:
    return {c.id: c for x in read_transcript(path).turns for c in x.tool_calls}


def test_a_user_record_is_split_into_the_person_s_words_and_the_harness_s(tmp_path):
    opened = ("<ide_opened_file>The user opened the file /Users/dain/workspace/danieldemmel.me-next/public/tokenizer.html "
              "in the IDE. This may or may not be related to the current task.</ide_opened_file>")
    path = write(
        tmp_path / "s.jsonl",
        user([text(opened), text("I have @public/tokenizer.css and @public/tokenizer.html, move them")]),
        user("<local-command-stdout>Reconnected to context7.</local-command-stdout>"),
        user("<user-memory-input>never commit generated files</user-memory-input>"),
        user("<teammate-message teammate_id=\"alice\">Round 2 is in flight.</teammate-message>"),
        user("<local-command-stdout></local-command-stdout>"),
    )
    t = read_transcript(path)
    assert [(x.kind, x.origin, x.text[:40]) for x in t.turns] == [
        ("harness", "harness", "The user opened the file /Users/dain/wor"),
        ("prompt", "person", "I have @public/tokenizer.css and @public"),
        ("harness", "harness", "Reconnected to context7."),
        ("prompt", "person", "never commit generated files"),  # a `#` memory: the person's own rule
        ("harness", "harness", "Round 2 is in flight."),  # a tag of a release we do not know: not theirs
    ]


def test_a_plan_the_harness_puts_back_is_the_agent_s_plan_in_the_harness_s_wrapper(tmp_path):
    plan = "# Consolidate logging to single file per worktree\n\n## Context\n\nOne log file per worktree."
    pointer = ("If you need specific details from before exiting plan mode (like exact code snippets, error messages, "
               "or content you generated), read the full transcript at: /Users/alex/.claude/projects/x/7aa4110c.jsonl")
    pasted = f"Implement the following plan:\n\n{plan}\n\n{pointer}"
    path = write(tmp_path / "s.jsonl", user(pasted, planContent=plan), user(pasted))  # newer builds say which plan
    t = read_transcript(path)
    for wrapper, body in (t.turns[0:2], t.turns[2:4]):
        assert (wrapper.kind, wrapper.origin, body.kind, body.origin) == ("harness", "harness", "plan", "agent")
        assert body.text == plan and "Implement the following plan" in wrapper.text and "transcript at" in wrapper.text
    person = write(tmp_path / "p.jsonl", user("Here is what I want:\n\n# Title\n\nDo it.\n\nThanks!"))
    assert [x.kind for x in read_transcript(person).turns] == ["prompt"]  # no pointer to a transcript: theirs


def test_a_declined_call_carries_the_person_s_words_and_no_output(tmp_path):
    path = write(
        tmp_path / "s.jsonl",
        user("rename the script"),
        assistant("m1", tool_use("t1", "Edit", file_path="/x.py")),
        user([tool_result("t1", REJECTED + "To tell you how to proceed, the user said:\nany chance we can consolidate "
                                           "this code?", is_error=True)]),
        assistant("m2", tool_use("t2", "Bash", command="git push")),
        user([tool_result("t2", REJECTED + "STOP what you are doing and wait for the user to tell you how to proceed.",
                          is_error=True)]),
        assistant("m3", tool_use("t3", "ExitPlanMode", plan="# Plan")),
        user([tool_result("t3", REJECTED + "The user provided the following reason for the rejection:  Let's keep the "
                                           "name of the py file", is_error=True)]),
    )
    calls = _calls(path)
    assert [calls[t].declined for t in ("t1", "t2", "t3")] == [
        "any chance we can consolidate this code?", "", "Let's keep the name of the py file"]
    for call in calls.values():
        assert (call.output, call.is_error, call.ran, call.answered) == ("", False, False, True)
        assert call.harness.startswith("The user doesn't want to proceed") and "consolidate" not in call.harness


def test_what_the_harness_answers_in_a_tool_s_place_is_never_its_output(tmp_path):
    path = write(
        tmp_path / "s.jsonl",
        user("check the docs"),
        assistant("m1", tool_use("t1", "WebSearch", query="x"), tool_use("t2", "Bash", command="ls ~/.claude"),
                  tool_use("t3", "AskUserQuestion", questions=[]), tool_use("t4", "Bash", command="a && claude -p x"),
                  tool_use("t5", "Bash", command="pytest"), tool_use("t6", "Edit", file_path="/a.py")),
        user([tool_result("t1", "Claude requested permissions to use WebSearch, but you haven't granted it yet.",
                          is_error=True)]),
        user([tool_result("t2", "ls in '~/.claude' was blocked. For security, Claude Code may only list files in the "
                                "allowed working directories for this session: '/src/experiments/claude_p'.",
                          is_error=True)]),
        user([tool_result("t3", "<tool_use_error>Error: No such tool available: AskUserQuestion</tool_use_error>",
                          is_error=True)]),
        user([tool_result("t4", "This Bash command contains multiple operations. The following part requires approval: "
                                "claude -p x", is_error=True)]),
        user([tool_result("t5", "Exit code 1\nFAILED tests/test_sync.py::test_full - requires approval", is_error=True)]),
        user([tool_result("t6", "<tool_use_error>String to replace not found in file.</tool_use_error>", is_error=True)]),
    )
    calls = _calls(path)
    for refused in ("t1", "t2", "t3", "t4"):
        c = calls[refused]
        assert (c.output, c.is_error, c.ran, c.declined) == ("", True, False, None), refused
        assert c.harness
    for ran in ("t5", "t6"):  # the tool's own errors: a failed test run, an edit that did not apply
        assert calls[ran].output and calls[ran].is_error and calls[ran].ran and not calls[ran].harness


def test_state_tools_and_subagent_bookkeeping_are_the_harness_s(tmp_path):
    approved = ("User has approved your plan. You can now start coding. Start with updating your todo list if "
                "applicable\n\nYour plan has been saved to: /Users/u/.claude/plans/p.md\n\n## Approved Plan:\n# Ship it\n"
                "Do the thing.")
    report = [text("The logging lives in logging/logger.go."),
              text("agentId: a485154 (for resuming to continue this agent's work if needed)\n<usage>total_tokens: 33854"
                   "\ntool_uses: 17\nduration_ms: 447008</usage>")]
    path = write(
        tmp_path / "s.jsonl",
        user("plan it"),
        assistant("m1", tool_use("t1", "ExitPlanMode"), tool_use("t2", "TodoWrite", todos=[]),
                  tool_use("t3", "Task", prompt="find the logger"), tool_use("t4", "Read", file_path="/a.go")),
        user([tool_result("t1", approved)]),
        user([tool_result("t2", "Todos have been modified successfully. Ensure that you continue to use the todo list "
                                "to track your progress. Please proceed with the current tasks if applicable")]),
        user([tool_result("t3", report)], toolUseResult={"status": "completed", "agentId": "a485154"}),
        user([tool_result("t4", "package a\n<system-reminder>\nWhenever you read a file, you should consider whether "
                                "it would be considered malware.\n</system-reminder>\n")]),
    )
    calls = _calls(path)
    assert (calls["t1"].output, calls["t1"].is_error, calls["t1"].input["plan"]) == ("", False, "# Ship it\nDo the thing.")
    assert calls["t1"].harness.startswith("User has approved your plan")
    assert (calls["t2"].output, calls["t2"].harness[:5]) == ("", "Todos")
    assert calls["t3"].output == "The logging lives in logging/logger.go."
    assert calls["t3"].harness.startswith("agentId: a485154") and calls["t3"].ran
    assert calls["t4"].output == "package a" and "malware" in calls["t4"].harness


def test_a_tool_s_own_failure_that_mentions_hooks_or_invalid_input_is_its_output(tmp_path):
    path = write(
        tmp_path / "s.jsonl",
        user("run the hook tests"),
        assistant("m1", tool_use("t1", "Bash", command="go test ./..."), tool_use("t2", "Bash", command="./x"),
                  tool_use("t3", "Bash", command="git commit")),
        user([tool_result("t1", "Exit code 1\n--- FAIL: TestPreToolUse (0.00s)\n    PreToolUse hook blocked the call",
                          is_error=True)]),
        user([tool_result("t2", "Exit code 2\nerror: invalid argument '--fast'", is_error=True)]),
        user([tool_result("t3", "PreToolUse:Bash hook error: [./hooks/no-main.sh]: commits to main are blocked",
                          is_error=True)]),
    )
    calls = _calls(path)
    assert calls["t1"].ran and calls["t1"].output.startswith("Exit code 1") and not calls["t1"].harness
    assert calls["t2"].ran and calls["t2"].output.startswith("Exit code 2") and not calls["t2"].harness
    assert (calls["t3"].ran, calls["t3"].output, calls["t3"].is_error) == (False, "", True)
    assert calls["t3"].harness.startswith("PreToolUse:Bash hook error")
