"""What Gemini CLI messages mean: the person's words, the model's answers, tool calls and results.

A message is `{id, timestamp, type, content, displayContent?}`; `content` is a string or a list of
Parts (`{text}`, `{text, thought: true}`, `{functionCall}`, `{functionResponse}`, `{inlineData}`).
`type` is `user`, `gemini` (with `toolCalls`, each carrying its own `result` and `status`), or a UI
notice (`info`, `error`, `warning`). Not the person's words, marked as the harness's: the
`<session_context>` bootstrap (date, OS, workspace tree, GEMINI.md), hook output wrapped in
`<hook_context>` (memgit's own among it), and the files an `@path` pulled in after the prompt (when
no `displayContent` says what was typed). User messages made only of tool responses (v0.44+) answer
calls. After `/compress` the summary arrives as a user message holding a `<state_snapshot>`. A call
the person turned down or the harness stopped is `cancelled`: its answer is the harness's.
"""

from __future__ import annotations

import json
import re
from typing import Any

from memgit.core.model import ToolCall, Turn
from memgit.sources import harness, memory_writes
from memgit.sources.harness import harness_text, lift_tags
from memgit.sources.trim import (MEMGIT_MARKER, PROMPT_HEAD, PROMPT_TAIL, Clean, redact, strip_tags, trim,
                                 trim_output, trim_value, utc)

SESSION_CONTEXT = "<session_context>"
HOOK_CONTEXT = "hook_context"
SNAPSHOT = "<state_snapshot>"
ACK = "Got it. Thanks for the additional context!"  # the model's reply upstream writes after a summary
NOTICES = frozenset({"info", "error", "warning"})
ANSWERED = frozenset({"success", "error", "cancelled"})
_EXIT_CODE = re.compile(r"^Exit Code: (-?\d+)\s*$", re.M)  # run_shell_command's result ends with it
SHELL = "run_shell_command"
# What each Gemini CLI tool does, in the neutral kinds of memgit.core.model.TOOL_KINDS (built-in tool
# names across releases; an MCP or extension tool is left unclassified).
KINDS = {
    SHELL: "shell", "write_file": "edit", "replace": "edit", "edit": "edit", "read_file": "read",
    "read_many_files": "read", "list_directory": "search", "glob": "search", "search_file_content": "search",
    "grep_search": "search", "delegate_to_agent": "subagent", "codebase_investigator": "subagent",
    "write_todos": "todo", "google_web_search": "web", "web_fetch": "web", "save_memory": "memory",
}
# Where Gemini CLI keeps what it remembers since memory v2 (transcript-formats §4.6): the global GEMINI.md
# and the private project memory; a write there is a "memory" call (memgit.sources.memory_writes).
MEMORY_PATHS = re.compile(r"/\.gemini/(?:GEMINI\.md|tmp/[^/]+/memory/[^/]+\.md)$")
# run_shell_command's result: `Command: … Directory: … Output: … Error: … Exit Code: … Signal: …
# Background PIDs: … Process Group PGID: …`, one field a line (Command and Output may span lines).
_SHELL_TRAILER = re.compile(r"^(?:Exit Code|Signal|Background PIDs|Process Group PGID): [^\n]*$")
_NOTHING = ("(none)", "(empty)")
_COMMAND = re.compile(r"^(?:/[A-Za-z][\w:-]*|\?)(?:\s|$)")  # `/memory add …`, `?`: a CLI command
# What an `@path` in a prompt pulled in, appended by the CLI (atCommandProcessor): the files' text.
_REFERENCED = re.compile(r"\n?-{3} Content from referenced files -{3}\n.*?(?:\n?-{3} End of content -{3}\s*|\Z)", re.S)


class MessageReader:
    """Turn a session's messages, in order, into turns; tool responses find their calls by id."""

    def __init__(self, *, clean: Clean | None = None, sidechain: bool = False):
        self.clean = clean or redact
        self.sidechain = sidechain
        self.turns: list[Turn] = []
        self.calls: dict[str, ToolCall] = {}
        self.contexts: list[str] = []  # the <session_context> texts (their workspace paths locate the project)
        self.injected = self.skipped = 0

    def feed(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "user":
            self._user(message)
        elif kind == "gemini":
            self._gemini(message)
        elif not (isinstance(kind, str) and kind in NOTICES):
            self.skipped += 1

    def _user(self, message: dict[str, Any]) -> None:
        content = parts(message.get("content"))
        for part in content:
            response = part.get("functionResponse")
            if isinstance(response, dict):
                self._response(response)
        shown = message.get("displayContent")
        text = part_text(parts(shown) if shown not in (None, "", []) else content)
        if MEMGIT_MARKER in text:
            self.injected += 1
            text = strip_tags(text, (HOOK_CONTEXT,))  # memgit's own context arrives as hook output
            if MEMGIT_MARKER in text:
                return
        lifted: list[str] = []
        if "<" + HOOK_CONTEXT in text:
            text, lifted = lift_tags(text, (HOOK_CONTEXT,))
        if "-- Content from referenced files --" in text:
            lifted += [m.group(0) for m in _REFERENCED.finditer(text)]
            text = _REFERENCED.sub("", text)
        for said in lifted:
            self._harness(said, message)
        text = text.strip()
        if not text:
            return
        if text.startswith(SESSION_CONTEXT):
            self.contexts.append(text)
            self._harness(harness.wrapped_whole(text) or text, message)
        elif SNAPSHOT in text:
            self._add("user", text, "compact_summary", message)  # prime input: kept whole
        elif _COMMAND.match(text):
            self._add("user", trim(text, PROMPT_HEAD, PROMPT_TAIL, self.clean), "command", message)
        else:
            self._add("user", trim(text, PROMPT_HEAD, PROMPT_TAIL, self.clean), "prompt", message)

    def _harness(self, text: str, message: dict[str, Any]) -> None:
        if text.strip():
            self._add("user", harness_text(text, self.clean), "harness", message)

    def _gemini(self, message: dict[str, Any]) -> None:
        text = part_text(parts(message.get("content"))).strip()
        if text == ACK:
            text = ""
        turn = self._add("assistant", text, "message", message)
        calls = message.get("toolCalls")
        for record in calls if isinstance(calls, list) else []:
            if isinstance(record, dict):
                call = self._call(record)
                turn.tool_calls.append(call)
                if call.id:
                    self.calls[call.id] = call

    def _call(self, record: dict[str, Any]) -> ToolCall:
        args = record.get("args")
        name = _text(record.get("name"))
        call = ToolCall(id=_text(record.get("id")), name=name, kind=KINDS.get(name, ""),
                        input=trim_value(_input(args), self.clean) if isinstance(args, dict) else {})
        memory_writes.mark(call, MEMORY_PATHS)
        status = _text(record.get("status"))
        output, failed = result_text(record.get("result"))
        if not output and isinstance(record.get("resultDisplay"), str):
            output = record["resultDisplay"]
        if record.get("result") not in (None, "", []) or status in ANSWERED:
            self._answer(call, output, failed, cancelled=status == "cancelled")
            call.is_error = call.is_error or (status == "error" and call.declined is None)
        return call

    def _answer(self, call: ToolCall, output: str, failed: bool, *, cancelled: bool = False) -> None:
        """Set a call's answer: the tool's output, or the harness's text when the call never ran."""
        call.answered = True
        if cancelled or (failed and harness.declined(output)):  # the person turned it down (or pressed Esc)
            call.declined, call.harness = "", harness_text(output or "cancelled", self.clean)
            return
        if failed and harness.refused(output):  # a policy or a permission stopped it
            call.is_error, call.harness = True, harness_text(output, self.clean)
            return
        call.is_error = failed or _exit_failed(call.name, output)
        output = shell_output(output) if call.name == SHELL else report_text(output) if call.kind == "subagent" else output
        call.output = trim_output(output, self.clean)

    def _response(self, response: dict[str, Any]) -> None:
        """A tool response recorded as a user message (v0.44+): it answers a call still open."""
        call = self.calls.get(response.get("id")) if isinstance(response.get("id"), str) else None
        if call is None or call.answered:
            return
        output, failed = result_text([{"functionResponse": response}])
        self._answer(call, output, failed)

    def _add(self, role: str, text: str, kind: str, message: dict[str, Any]) -> Turn:
        turn = Turn(role, text, kind, utc(message.get("timestamp")), sidechain=self.sidechain)
        self.turns.append(turn)
        return turn

    def finish(self) -> list[Turn]:
        """The turns, without model turns left with neither text nor calls (thoughts only)."""
        return [t for t in self.turns if t.role == "user" or t.text or t.tool_calls]


def parts(content: Any) -> list[dict[str, Any]]:
    """A PartListUnion (a string, a Part, a list of either) as a list of Parts."""
    if isinstance(content, str):
        return [{"text": content}]
    if isinstance(content, dict):
        return [content]
    if isinstance(content, list):
        return [p if isinstance(p, dict) else {"text": p} for p in content if isinstance(p, dict | str)]
    return []


def part_text(content: list[dict[str, Any]]) -> str:
    """The visible text of Parts: thoughts left out, attachments as `[image]` / `[file]`."""
    texts = []
    for part in content:
        if isinstance(part.get("text"), str) and part.get("thought") is not True:
            texts.append(part["text"])
        elif "inlineData" in part:
            texts.append("[image]")
        elif "fileData" in part:
            texts.append("[file]")
    return "".join(texts) if len(texts) < 2 else "\n".join(texts)


def result_text(result: Any) -> tuple[str, bool]:
    """The text of a tool call's result Parts, and whether it reports an error."""
    texts, failed = [], False
    for part in parts(result):
        response = part.get("functionResponse")
        if isinstance(response, dict):
            body = response.get("response")
            if isinstance(body, dict) and "error" in body:
                failed = True
                texts.append(_stringify(body["error"]))
            elif isinstance(body, dict) and "output" in body:
                texts.append(_stringify(body["output"]))
            elif body is not None:
                texts.append(_stringify(body))
        elif isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif "inlineData" in part:
            texts.append("[image]")
    return "\n".join(t for t in texts if t), failed


def _input(args: dict[str, Any]) -> dict[str, Any]:
    """A call's arguments, its file under `file_path` whatever the release named it."""
    for key in ("absolute_path", "target_file"):
        if isinstance(args.get(key), str) and "file_path" not in args:
            return {**args, "file_path": args[key]}
    return args


def shell_output(text: str) -> str:
    """What a shell command printed (its Output, then its Error), without the result's other fields.

    The command line is the call's input already; the directory, exit code, signal and process
    ids are the moment's bookkeeping. A result of another shape is returned as it is.
    """
    if not text.startswith("Command: "):
        return text
    lines = text.split("\n")
    while lines and _SHELL_TRAILER.match(lines[-1]):
        lines.pop()
    body = "\n".join(lines)
    at = body.find("\nOutput: ")
    if at < 0:
        return text
    body = body[at + len("\nOutput: "):]
    cut = body.rfind("\nError: ")
    output, error = (body[:cut], body[cut + len("\nError: "):]) if cut >= 0 else (body, "")
    parts = [p for p in (output.strip("\n"), error.strip("\n")) if p.strip() and p.strip() not in _NOTHING]
    return "\n".join(parts)


def report_text(text: str) -> str:
    """A subagent's report as prose: its `Result:` JSON object (`SummaryOfFindings`, relevant
    locations with their reasoning…) read out as text, the status lines before it dropped."""
    at = text.find("\nResult:\n")
    if at < 0:
        return text
    try:
        result = json.loads(text[at + len("\nResult:\n"):])
    except (ValueError, RecursionError):
        return text
    lines: list[str] = []
    _prose(result, lines, 0)
    return "\n\n".join(lines) if lines else text


def _prose(value: Any, lines: list[str], depth: int) -> None:
    """The strings of a report, each list of records as `first field: the others`."""
    if isinstance(value, str):
        if value.strip():
            lines.append(value.strip())
    elif isinstance(value, dict) and depth < 4:
        strings = [v.strip() for v in value.values() if isinstance(v, str) and v.strip()]
        if depth > 0 and len(strings) > 1:  # a record: `src/agents/registry.ts: hardcoded registration`
            lines.append(f"{strings[0]}: {' '.join(strings[1:])}")
        else:
            lines.extend(strings)
        for v in value.values():
            if isinstance(v, dict | list):
                _prose(v, lines, depth + 1)
    elif isinstance(value, list) and depth < 4:
        items = [v for v in value if not isinstance(v, str) or " " in v.strip()]  # a list of tool calls is no prose
        for v in items:
            _prose(v, lines, depth + 1)


def _exit_failed(name: str, output: str) -> bool:
    """True when a shell call's result ends with a non-zero `Exit Code:` (its status says success)."""
    if name != SHELL:
        return False
    code = _EXIT_CODE.search(output[-2000:])
    return bool(code and code.group(1) != "0")


def _stringify(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False)[:20000]
    except (TypeError, ValueError, RecursionError):
        return ""


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
