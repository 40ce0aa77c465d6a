"""What Claude Code transcript records mean: user and assistant turns, tool calls, metadata.

A user record holds the person's words, harness text (see harness.py), or both: it becomes one
turn per part, each marked by its kind (memgit.core.model.USER_KINDS says which are the person's).
"""

from __future__ import annotations

from typing import Any

from memgit.core.model import ToolCall, Turn
from memgit.sources.claude_code import harness as cc
from memgit.sources.claude_code.harness import CONTINUATION  # noqa: F401  (where a compaction summary starts)
from memgit.sources import memory_writes
from memgit.sources.claude_code.tools import MEMORY_PATHS
from memgit.sources.claude_code.tools import kind as tool_kind
from memgit.sources.harness import harness_text, lift_tags, wrapped_whole
from memgit.sources.trim import (MEMGIT_MARKER, OUTPUT_HEAD, OUTPUT_TAIL, PROMPT_HEAD, PROMPT_TAIL, Clean,
                                 strip_tags, trim, trim_value, utc)
from memgit.sources.trim import redact as _redact

Part = tuple[str, str]  # (a USER_KINDS kind, its text)
_HOOK_WHEN = {"PreToolUse": "before", "PostToolUse": "after"}  # the hook events around a tool call


class RecordParser:
    """Turn the records of one file, in order, into turns and session metadata."""

    def __init__(self, *, sidechain: bool, clean: Clean | None = None):
        self.sidechain = sidechain
        self.clean = clean or _redact  # applied to a long text before it is cut (see _trim)
        self.turns: list[Turn | None] = []  # None: a queued prompt that later arrived for real
        self.messages: dict[str, Turn] = {}  # message.id -> its assistant turn
        self.calls: dict[str, ToolCall] = {}  # tool_use id -> call
        self.queued: dict[str, int] = {}  # queued text -> index in turns
        self.agent_ids: list[str] = []  # subagents referenced by tool results
        self.uuids: set[str] = set()
        self.summaries: list[tuple[str, str]] = []  # (leafUuid, title)
        self.ai_title: str | None = None
        self.cwd = self.git_branch = self.version = None
        self.first_ts = self.last_ts = None
        self.records = self.injected = 0
        self.hooks: dict[tuple[str, str, str], None] = {}  # (when, tool kind, command) of the hooks run, in order
        self._handlers = {"user": self._user, "assistant": self._assistant,
                          "queue-operation": self._queue, "summary": self._summary,
                          "ai-title": self._ai_title, "system": self._hook, "progress": self._hook}

    def feed(self, record: dict[str, Any]) -> None:
        self.records += 1
        uuid = record.get("uuid")
        if isinstance(uuid, str):
            if uuid in self.uuids:  # a record copied again (resume, two writers): already read
                return
            self.uuids.add(uuid)
        ts = record.get("timestamp")
        if isinstance(ts, str):
            self.first_ts = self.first_ts or ts
            self.last_ts = ts
        if self.cwd is None and isinstance(record.get("cwd"), str):
            self.cwd = record["cwd"]
        if self.version is None and isinstance(record.get("version"), str):
            self.version = record["version"]
        if self.git_branch is None and record.get("gitBranch") not in (None, "", "HEAD"):
            self.git_branch = str(record["gitBranch"])  # "HEAD": detached, says nothing
        kind = record.get("type")
        handler = self._handlers.get(kind) if isinstance(kind, str) else None
        if handler is not None:
            handler(record)

    def finish(self) -> list[Turn]:
        """The turns, without the queued duplicates and the thinking-only assistant turns."""
        return [t for t in self.turns if t is not None and (t.role == "user" or t.text or t.tool_calls)]

    def title(self) -> str | None:
        if self.ai_title:
            return self.ai_title
        # Summaries often title *other* sessions: trust one only if its leaf is in this file.
        own = [title for leaf, title in self.summaries if leaf in self.uuids]
        return own[-1] if own else None

    def _add(self, role: str, text: str, kind: str, record: dict[str, Any]) -> Turn:
        turn = Turn(role, text, kind, utc(record.get("timestamp")),
                    sidechain=self.sidechain or record.get("isSidechain") is True)
        self.turns.append(turn)
        return turn

    def _user(self, record: dict[str, Any]) -> None:
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        texts = [content] if isinstance(content, str) else []
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "tool_result":
                self._tool_result(block, record)
            elif kind == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif kind == "image":
                texts.append("[image]")
        if not texts:
            return
        text = "\n".join(texts)
        if record.get("isMeta"):  # the harness's own: a skill's or a command's body, a caveat, an image note
            if text.strip() and MEMGIT_MARKER not in text:
                self._add("user", self._harness(cc.unwrap(text)), "harness", record)
            return
        self._user_text(text, record)

    def _user_text(self, text: str, record: dict[str, Any]) -> None:
        if record.get("isCompactSummary") or text.startswith(CONTINUATION):
            if MEMGIT_MARKER in text:
                self.injected += 1
                text = strip_tags(text, ("memgit-context",))
            self._add("user", text, "compact_summary", record)  # prime input: kept whole
            return
        for kind, part in self._parts(text, record):
            if not part:  # an empty output, a tag with nothing in it
                continue
            if kind == "prompt" and part in self.queued:  # the queued prompt arrived for real: keep one copy
                self.turns[self.queued.pop(part)] = None
            self._add("user", part, kind, record)

    def _parts(self, text: str, record: dict[str, Any]) -> list[Part]:
        """The parts of a user message, each with its kind: the person's words apart from the harness's."""
        if MEMGIT_MARKER in text:
            self.injected += 1
            return []
        text = text.strip()
        if text.startswith(cc.INTERRUPTED):
            return [("interrupt", text)]
        if "<command-name>" in text:
            name, args = _between(text, "command-name").strip(), _between(text, "command-args").strip()
            return [("command", f"{'' if name.startswith('/') else '/'}{name} {args}".strip())]
        if "<bash-input>" in text:
            return [("command", "!" + _between(text, "bash-input").strip())]
        if text.startswith(cc.HARNESS_TAGS) or text.startswith(cc.CAVEAT):
            return [("harness", self._harness(cc.unwrap(text)))]
        if (plan := cc.plan_parts(text, record.get("planContent"))) is not None:
            wrapper, body = plan
            return [("harness", self._harness(wrapper)), ("plan", trim(body, PROMPT_HEAD, PROMPT_TAIL, self.clean))]
        parts: list[Part] = []
        if "<" in text:
            text, lifted = lift_tags(text, cc.INJECTED_TAGS)
            parts += [("harness", self._harness(inner)) for inner in lifted if inner.strip()]
            text, mine = lift_tags(text, cc.PERSON_TAGS)
            text = "\n".join([*mine, text]).strip()
            if (inner := wrapped_whole(text)) is not None:  # a tag of a release we do not know yet
                return [*parts, ("harness", self._harness(inner))] if inner.strip() else parts
        if text.strip():
            parts.append(("prompt", trim(text.strip(), PROMPT_HEAD, PROMPT_TAIL, self.clean)))
        return parts

    def _harness(self, text: str) -> str:
        return harness_text(text, self.clean)

    def _queue(self, record: dict[str, Any]) -> None:
        if record.get("operation") != "enqueue":
            return
        content = record.get("content")
        if isinstance(content, list):
            content = "\n".join(b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))
        for kind, part in self._parts(content, record) if isinstance(content, str) else []:
            if kind == "prompt":
                self.queued[part] = len(self.turns)
                self._add("user", part, "queued", record)

    def _assistant(self, record: dict[str, Any]) -> None:
        message = record.get("message")
        if record.get("isApiErrorMessage") or not isinstance(message, dict):
            return
        if message.get("model") == "<synthetic>":
            return
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        elif not isinstance(content, list):
            return
        key = message.get("id") or record.get("uuid")
        key = key if isinstance(key, str) else f"record-{self.records}"  # no id: a turn of its own
        turn = self.messages.get(key)
        if turn is None:
            turn = self.messages[key] = self._add("assistant", "", "message", record)
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text":
                text = block.get("text")
                if isinstance(text, str) and text.strip():
                    turn.text = f"{turn.text}\n\n{text}" if turn.text else text
            elif kind == "tool_use":
                raw = block.get("input")
                name = str(block.get("name") or "")
                call = ToolCall(id=str(block.get("id") or ""), name=name,
                                input=trim_value(raw, self.clean) if isinstance(raw, dict) else {}, kind=tool_kind(name))
                memory_writes.mark(call, MEMORY_PATHS)
                turn.tool_calls.append(call)
                if call.id:
                    self.calls[call.id] = call

    def _tool_result(self, block: dict[str, Any], record: dict[str, Any]) -> None:
        structured = record.get("toolUseResult")
        if isinstance(structured, dict) and isinstance(structured.get("agentId"), str):
            self.agent_ids.append(structured["agentId"])
        use_id = block.get("tool_use_id")
        call = self.calls.get(use_id) if isinstance(use_id, str) else None
        if call is None:  # its tool_use is before this range, or never was
            return
        call.is_error = block.get("is_error") is True
        call.answered = True
        # Bounded first (what a transcript keeps of an output), then told apart: the harness writes
        # its answer at the head (a refusal) or the tail (a subagent's bookkeeping), both kept.
        output, reminders = _tool_output(block.get("content"), self.clean)
        output, said, words = cc.tool_answer(call.name, output, call.is_error)
        if words is not None:  # the person turned it down: their choice, not a failure
            call.is_error, call.declined = False, words
        if call.kind == "plan" and words is None:
            said, plan = cc.approved_plan(said)
            if plan and not isinstance(call.input.get("plan"), str):  # older builds quote it only here
                call.input["plan"] = trim(plan, PROMPT_HEAD, PROMPT_TAIL, self.clean)
        call.output = output
        if said or reminders:
            call.harness = harness_text("\n".join(p for p in (said, *reminders) if p.strip()), self.clean)

    def _summary(self, record: dict[str, Any]) -> None:
        leaf, title = record.get("leafUuid"), record.get("summary")
        if isinstance(leaf, str) and isinstance(title, str) and title.strip():
            self.summaries.append((leaf, title.strip()))

    def _hook(self, record: dict[str, Any]) -> None:
        """A hook run around a tool call ("PostToolUse:Edit" ran `uv run ruff format`), in neutral terms."""
        if (run := cc.hook_run(record)) is not None:
            event, _, tool = run[0].partition(":")
            when = _HOOK_WHEN.get(event)
            if when and tool:
                self.hooks.setdefault((when, tool_kind(tool), run[1]), None)

    def _ai_title(self, record: dict[str, Any]) -> None:
        title = record.get("aiTitle")
        if isinstance(title, str) and title.strip():
            self.ai_title = title.strip()


# -- text helpers ----------------------------------------------------------------------------

def _tool_output(content: Any, clean: Clean = _redact) -> tuple[str, list[str]]:
    """The text of a tool_result (images as a placeholder), trimmed, and the system reminders lifted out of it."""
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict):
                if isinstance(block.get("text"), str):
                    parts.append(block["text"])
                elif block.get("type") == "image":
                    parts.append("[image]")
        content = "\n".join(parts)
    elif not isinstance(content, str):
        return "", []
    reminders: list[str] = []
    if "<system-reminder>" in content:
        content, reminders = lift_tags(content, ("system-reminder",))
    if MEMGIT_MARKER in content:  # `memgit context` run by the agent: our own memory, not evidence
        content = strip_tags(content, ("memgit-context",))
    return trim(content.strip(), OUTPUT_HEAD, OUTPUT_TAIL, clean), reminders


def _between(text: str, tag: str) -> str:
    """The content of the first `<tag>…</tag>` in text, or ""."""
    start = text.find(f"<{tag}>")
    if start < 0:
        return ""
    start += len(tag) + 2
    end = text.find(f"</{tag}>", start)
    return text[start:] if end < 0 else text[start:end]

