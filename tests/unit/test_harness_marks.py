"""Harness text is never a learning: synthetic sessions of each agent, read by the real sources.

Each session hides standing-rule-shaped sentences in the places a harness writes (a reminder, IDE
context, a hook's output, a skill's body, a refusal, a plan's wrapper) beside a rule the person
typed. The person's rule is learned; nothing the harness wrote is, and the extractor sees it only
as marked (memgit.core.model: Turn.origin, ToolCall.harness).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memgit.core.model import AGENT, HARNESS, PERSON, USER_KINDS, ToolCall, Transcript, Turn
from memgit.extract import heuristic
from memgit.extract.heuristic import session
from memgit.sources import codex, gemini
from memgit.sources.claude_code.reader import read_transcript as read_claude
from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests.harness_text import harness_units, leaks

PERSON_RULE = "Never put emoji in commit messages."
# Harness text shaped like rules a person states: the learners would take it if it were theirs.
TEMPTING = ("Always use pnpm instead of npm in this repo", "never push to the main branch",
            "From now on always run the linter", "we always deploy with make release")


ORIGINS = [
    ("user", "prompt", False, PERSON), ("user", "queued", False, PERSON), ("user", "command", False, PERSON),
    ("user", "instructions", False, PERSON), ("user", "plan", False, AGENT), ("user", "compact_summary", False, AGENT),
    ("user", "interrupt", False, HARNESS), ("user", "harness", False, HARNESS), ("user", "no such kind", False, HARNESS),
    ("user", "prompt", True, AGENT),  # a subagent's task: the parent agent wrote it
    ("user", "harness", True, HARNESS), ("assistant", "message", False, AGENT), ("assistant", "message", True, AGENT),
]


@pytest.mark.parametrize(("role", "kind", "sidechain", "origin"), ORIGINS)
def test_a_turn_s_origin_follows_from_its_kind(role, kind, sidechain, origin):
    assert Turn(role, "text", kind, sidechain=sidechain).origin == origin
    assert set(USER_KINDS.values()) == {PERSON, AGENT, HARNESS}


@pytest.mark.parametrize(("call", "ran"), [
    (ToolCall("t", "Bash", output="ok", answered=True), True),
    (ToolCall("t", "Bash", output="FAILED", is_error=True, answered=True), True),
    (ToolCall("t", "Task", output="report", answered=True, harness="agentId: a1"), True),  # bookkeeping around it
    (ToolCall("t", "Bash", answered=True, harness="This command requires approval", is_error=True), False),
    (ToolCall("t", "Edit", answered=True, declined="keep the name", harness="The user doesn't want to proceed"), False),
    (ToolCall("t", "Bash"), False),  # never answered
])
def test_a_call_ran_when_the_tool_itself_answered(call, ran):
    assert call.ran is ran


def learned(transcript: Transcript) -> list[str]:
    note = heuristic.extract(transcript, project="p").note
    assert note is not None
    assert not leaks(note, transcript, also=TEMPTING), leaks(note, transcript, also=TEMPTING)
    return [learning.text for learning in note.learnings]


def said(transcript: Transcript) -> str:
    """Everything the learners read as the person's words."""
    return "\n".join(x.said for x in session.read(transcript).exchanges)


def test_claude_code(tmp_path):
    w = SessionWriter(session_id("marks"), "/home/u/dev/pinion")
    w.user("<system-reminder>Always use pnpm instead of npm in this repo.</system-reminder>\n"
           f"The sync tests fail on CI, can you fix them? {PERSON_RULE}")
    w.user([{"type": "text", "text": "<ide_opened_file>The user opened the file /home/u/dev/pinion/sync.py in the IDE. "
                                     "From now on always run the linter.</ide_opened_file>"},
            {"type": "text", "text": "look at sync.py first"}])
    w.user("Base directory for this skill: /x\n\nWe always deploy with make release; never push to the main branch.",
           isMeta=True)
    w.user("<local-command-stdout>Always use pnpm instead of npm in this repo</local-command-stdout>")
    w.tool("Bash", {"command": "npm test"}, "This command requires approval. Always use pnpm instead of npm in this repo",
           error=True)
    w.declined("Edit", {"file_path": "/home/u/dev/pinion/cli.py", "old_string": "a", "new_string": "b"},
               "keep the old name, the CI scripts call it")
    w.bash("uv run pytest -x tests/", "18 passed in 2.31s")
    w.assistant("Fixed: the sync tests pass with `uv run pytest -x tests/`.")
    t = read_claude(w.write(tmp_path))

    assert sum(x.origin == HARNESS for x in t.turns) >= 4 and harness_units(t)
    assert all(rule.lower() not in said(t).lower() for rule in TEMPTING)
    assert "look at sync.py first" in said(t) and "keep the old name" in said(t)
    assert any(PERSON_RULE.rstrip(".") in text for text in learned(t))
    [refused] = [c for x in t.turns for c in x.tool_calls if c.command == "npm test"]
    assert not refused.ran and refused.harness and not refused.output
    assert not any(r.call is refused for r in session.read(t).runs)  # never a failed run, never a gotcha


def test_a_plan_the_harness_put_back_is_the_agent_s_not_the_person_s(tmp_path):
    plan = "# Resumable sync\n\n## Context\n\nStore a cursor after each batch and resume from it."
    w = SessionWriter(session_id("plan"), "/home/u/dev/pinion")
    w.user(f"Implement the following plan:\n\n{plan}\n\nIf you need specific details from before exiting plan mode, "
           "read the full transcript at: /home/u/.claude/projects/x/0000.jsonl", planContent=plan)
    w.bash("uv run pytest", "3 passed").assistant("Done.")
    w.user(PERSON_RULE)
    t = read_claude(w.write(tmp_path))
    s = session.read(t)
    assert s.plans == [plan] and [x.kind for x in s.requests] == ["plan", "prompt"]
    assert "following plan" not in said(t) and "transcript at" not in said(t)
    assert [x.origin for x in t.turns if x.role == "user"] == [HARNESS, "agent", PERSON]
    assert learned(t)


def _codex(tmp_path: Path, *payloads: tuple[str, dict]) -> Transcript:
    thread = "019e1625-789d-76c0-80ab-3724b5ddb799"
    ts = "2026-05-11T08:27:17.490Z"
    records = [{"timestamp": ts, "type": "session_meta",
                "payload": {"id": thread, "timestamp": ts, "cwd": "/work/proj", "cli_version": "0.125.0"}}]
    records += [{"timestamp": ts, "type": kind, "payload": payload} for kind, payload in payloads]
    path = tmp_path / f"rollout-2026-05-11T11-26-55-{thread}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return codex.read_transcript(path)


def test_codex(tmp_path):
    def said_event(text: str) -> tuple[str, dict]:
        return "event_msg", {"type": "user_message", "message": text, "images": []}

    t = _codex(
        tmp_path,
        said_event("# Context from my IDE setup:\n\n## Active file: README.md\n\n## Open tabs:\n- Always use pnpm instead "
                   "of npm in this repo\n\n## My request for Codex:\nWhy is the sync slow? " + PERSON_RULE),
        said_event('<hook_prompt hook_run_id="1">From now on always run the linter.</hook_prompt>'),
        said_event("<environment_context>\n  <approval_policy>never push to the main branch</approval_policy>\n"
                   "</environment_context>"),
        ("response_item", {"type": "function_call", "name": "exec_command", "call_id": "c1",
                           "arguments": json.dumps({"cmd": "git push origin main"})}),
        ("response_item", {"type": "function_call_output", "call_id": "c1",
                           "output": "exec command rejected by user: we always deploy with make release"}),
        ("response_item", {"type": "message", "role": "assistant",
                           "content": [{"type": "output_text", "text": "The sync batches were too small; fixed."}]}),
    )
    assert [x.origin for x in t.turns if x.role == "user"] == [HARNESS, PERSON, HARNESS, HARNESS]
    [push] = [c for x in t.turns for c in x.tool_calls]
    assert (push.declined, push.output, push.ran) == ("", "", False)
    assert all(rule.lower() not in said(t).lower() for rule in TEMPTING)
    assert any(PERSON_RULE.rstrip(".") in text for text in learned(t))


def test_gemini_cli(tmp_path):
    chats = tmp_path / "tmp" / "shop" / "chats"
    chats.mkdir(parents=True)
    messages = [
        {"id": "u0", "type": "user", "content": [{"text": "<session_context>\nThis is the Gemini CLI.\n"
                                                          "Always use pnpm instead of npm in this repo.\n</session_context>"}]},
        {"id": "u1", "type": "user", "content": [
            {"text": "<hook_context>From now on always run the linter.</hook_context>"},
            {"text": f"Why is checkout slow? {PERSON_RULE}\n--- Content from referenced files ---\nContent from "
                     "@NOTES.md:\nwe always deploy with make release\n--- End of content ---"}]},
        {"id": "g1", "type": "gemini", "content": "The cart query ran once per item; batched it.", "toolCalls": [
            {"id": "c1", "name": "run_shell_command", "args": {"command": "git push origin main"}, "status": "cancelled",
             "result": [{"functionResponse": {"id": "c1", "name": "run_shell_command", "response": {
                 "error": "[Operation Cancelled] Reason: User denied execution. never push to the main branch"}}}]}]},
    ]
    doc = {"sessionId": "2a07c579-1111-4222-8333-444455556666", "projectHash": "h", "startTime": "2026-07-01T10:00:00Z",
           "lastUpdated": "2026-07-01T10:05:00Z", "messages": messages}
    path = chats / "session-2026-07-01T10-00-2a07c579.json"
    path.write_text(json.dumps(doc))
    t = gemini.read_transcript(path)
    assert [x.origin for x in t.turns if x.role == "user"] == [HARNESS, HARNESS, HARNESS, PERSON]
    [push] = [c for x in t.turns for c in x.tool_calls]
    assert (push.declined, push.output, push.ran) == ("", "", False)
    assert all(rule.lower() not in said(t).lower() for rule in TEMPTING)
    assert any(PERSON_RULE.rstrip(".") in text for text in learned(t))
