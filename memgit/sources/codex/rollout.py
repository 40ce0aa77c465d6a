"""What the records of a Codex rollout mean: the person's words, the agent's answers, tool calls.

Three eras share this parser: envelope lines `{timestamp, type, payload}` (since Sept 2025), bare
Responses items after a bare `{id, timestamp, instructions}` header (Rust builds before that), and
the items of a TypeScript-CLI `.json` document. In envelope rollouts the person's words are read
from events (`user_message`; `item_completed`/`UserMessage` in paginated rollouts) because the
`response_item` user messages mix them with injected context; the agent's words from
`response_item` assistant messages (always written, unlike `agent_message` events, which mirror
them). Tool calls pair with their outputs by `call_id`; `exec_command_end`, `patch_apply_end`,
`mcp_tool_call_end` and paginated items complete them. A fork replays its parent's lines after
its own header: they are skipped until the first turn that started after the fork.
"""

from __future__ import annotations

from typing import Any

from memgit.core.model import ToolCall, Turn
from memgit.sources.codex import fragments, tools
from memgit.sources.harness import harness_text
from memgit.sources.trim import (MEMGIT_MARKER, PROMPT_HEAD, PROMPT_TAIL, Clean, epoch_ms, redact, trim,
                                 trim_output, trim_value, utc)

INTERRUPTED = "[Request interrupted by user]"  # the Claude Code reader's words for the same thing
ENVELOPES = frozenset({"session_meta", "turn_context", "response_item", "event_msg", "compacted",
                       "world_state", "inter_agent_communication", "inter_agent_communication_metadata",
                       "token_usage_record", "retained_context", "security_risk_score", "realtime_item"})
CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call", "tool_search_call"})
OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output", "local_shell_call_output",
                     "tool_search_output"})
IGNORED_ITEMS = frozenset({"reasoning", "image_generation_call", "ghost_snapshot", "agent_message",
                           "compaction", "context_compaction", "compaction_summary", "additional_tools",
                           "mcp_list_tools", "item_reference"})
# Events read, and events known to say nothing a note needs (progress, usage, UI state).
IGNORED_EVENTS = frozenset({
    "agent_message", "agent_message_delta", "agent_reasoning", "agent_reasoning_raw_content",
    "agent_reasoning_section_break", "token_count", "task_started", "task_complete", "turn_started",
    "turn_complete", "context_compacted", "exec_command_begin", "exec_command_output_delta",
    "patch_apply_begin", "web_search_begin", "web_search_end", "mcp_tool_call_begin", "entered_review_mode",
    "exited_review_mode", "thread_goal_updated", "undo_started", "undo_completed", "sub_agent_activity",
    "guardian_assessment", "error", "stream_error", "warning", "item_started", "view_image_tool_call",
    "dynamic_tool_call_request", "dynamic_tool_call_response", "image_generation_end", "image_generation_begin",
    "thread_settings_applied", "plan_update", "turn_diff", "background_event", "session_configured",
    "shutdown_complete", "mcp_startup_update", "mcp_startup_complete", "get_history_entry_response",
    "list_custom_prompts_response", "conversation_path", "raw_response_item", "hook_started", "hook_completed",
})
ITEM_KINDS = frozenset({"UserMessage", "AgentMessage", "Reasoning", "CommandExecution", "FileChange",
                        "McpToolCall", "Extension", "WebSearch", "Plan", "ImageGeneration", "SubAgentActivity",
                        "CollabAgentToolCall", "ContextCompaction", "HookPrompt", "DynamicToolCall"})


class RolloutParser:
    """Turn the records of one rollout, in order, into turns and session metadata."""

    def __init__(self, *, file_id: str | None, clean: Clean | None = None):
        self.file_id = file_id  # the thread UUID in the file name: names the file's own header
        self.clean = clean or redact  # applied to a long text before it is cut
        self.turns: list[Turn] = []
        self.calls: dict[str, ToolCall] = {}
        self.header: dict[str, Any] | None = None
        self.thread_id: str | None = None
        self.git_branch = self.version = self.title = None
        self.first_ts = self.last_ts = None
        self.records = self.skipped = self.injected = 0
        self.subagent = False
        self.bare = False  # pre-envelope or TypeScript era: the person's words are in the items
        self._cwd = {"header": None, "turn": None, "environment": None}
        self._fork_ms: int | None = None  # set while the lines are a fork's replay of its parent
        self._completed: set[str] = set()  # calls whose output came from an end event (the fuller one)
        self._instructions: set[str] = set()  # the AGENTS.md texts already turned into a turn
        self._events = {"user_message": self._user_message, "turn_aborted": self._turn_aborted,
                        "thread_rolled_back": self._rolled_back, "exec_command_end": self._exec_end,
                        "patch_apply_end": self._patch_end, "mcp_tool_call_end": self._mcp_end,
                        "item_completed": self._item_completed, "thread_name_updated": self._thread_name}

    @property
    def cwd(self) -> str | None:
        """The session's directory: its header's, else its first turn's, else its environment's."""
        return self._cwd["header"] or self._cwd["turn"] or self._cwd["environment"]

    def adopt_header(self, payload: dict[str, Any], *, at_start: bool) -> None:
        """Take a `session_meta` payload (or a bare header) as this file's own."""
        self.header = payload
        if isinstance(payload.get("id"), str):
            self.thread_id = payload["id"]
        if isinstance(payload.get("cwd"), str) and payload["cwd"]:
            self._cwd["header"] = payload["cwd"]
        git = payload.get("git")
        branch = git.get("branch") if isinstance(git, dict) else None
        self.git_branch = branch if isinstance(branch, str) and branch not in ("", "HEAD") else None
        version = payload.get("cli_version")
        self.version = version if isinstance(version, str) else None
        source = payload.get("source")
        self.subagent = isinstance(source, dict) and "subagent" in source
        if at_start and payload.get("forked_from_id"):
            self._fork_ms = epoch_ms(payload.get("timestamp"))

    def feed(self, record: dict[str, Any]) -> None:
        self.records += 1
        kind, payload = record.get("type"), record.get("payload")
        if isinstance(kind, str) and isinstance(payload, dict):
            ts = record.get("timestamp")
            if isinstance(ts, str):
                self.first_ts = self.first_ts or ts
                self.last_ts = ts
            if self._fork_ms is not None and self._replayed(kind, payload):
                return
            self._envelope(kind, payload, ts)
        elif "record_type" in record:  # pre-envelope `{"record_type": "state"}` markers
            return
        elif isinstance(kind, str):  # a bare Responses item
            self.bare = True
            self._item(record, None)
        elif isinstance(record.get("id"), str) and "timestamp" in record:  # the bare header
            self.bare = True
            if self.header is None:
                self.adopt_header(record, at_start=False)
        else:
            self.skipped += 1

    def finish(self) -> list[Turn]:
        """The turns, without assistant turns left with neither text nor calls."""
        turns = [t for t in self.turns if t.role == "user" or t.text or t.tool_calls]
        if self.subagent:  # its "user" is the parent agent: nothing here is the person's words
            for turn in turns:
                turn.sidechain = True
        return turns

    # -- envelope records -------------------------------------------------------------------

    def _envelope(self, kind: str, payload: dict[str, Any], ts: Any) -> None:
        if kind == "session_meta":
            self._session_meta(payload)
        elif kind == "response_item":
            self._item(payload, ts)
        elif kind == "event_msg":
            event = _text(payload.get("type"))
            handler = self._events.get(event)
            if handler is not None:
                handler(payload, ts)
            elif event not in IGNORED_EVENTS and not event.startswith("collab_"):
                self.skipped += 1
        elif kind == "turn_context":
            if self._cwd["turn"] is None and isinstance(payload.get("cwd"), str) and payload["cwd"]:
                self._cwd["turn"] = payload["cwd"]
        elif kind == "compacted":  # local compaction: the summary; remote: an opaque blob, no text
            message = payload.get("message")
            if not (isinstance(message, str) and message.strip()):
                message = fragments.history_summary(payload.get("replacement_history"))
            if message:
                self._user_text(message, ts, summary=True)
        elif kind not in ENVELOPES:
            self.skipped += 1

    def _session_meta(self, payload: dict[str, Any]) -> None:
        own = self.header
        if own is None:
            self.adopt_header(payload, at_start=True)
        elif self.file_id and payload.get("id") == self.file_id and own.get("id") != self.file_id:
            self.adopt_header(payload, at_start=False)  # the first one was a replayed ancestor's
        # else: a resume's header again, a replayed parent's, a spawned agent's copy

    def _replayed(self, kind: str, payload: dict[str, Any]) -> bool:
        """True while the lines replay the parent's history; the first new turn ends the replay."""
        if kind == "turn_context":
            turn_id = payload.get("turn_id")
        elif kind == "event_msg" and payload.get("type") == "task_started":
            turn_id = payload.get("turn_id")
        else:
            return True
        started = uuid7_ms(turn_id)
        if started is not None and self._fork_ms is not None and started < self._fork_ms:
            return True
        self._fork_ms = None
        return False

    # -- response items ---------------------------------------------------------------------

    def _item(self, item: dict[str, Any], ts: Any) -> None:
        kind = _text(item.get("type"))
        if kind == "message":
            self._message(item, ts)
        elif kind in CALLS:
            self._call(item, ts)
        elif kind in OUTPUTS:
            self._output(item)
        elif kind == "web_search_call":
            self._web_search(item, ts)
        elif kind not in IGNORED_ITEMS:
            self.skipped += 1

    def _message(self, item: dict[str, Any], ts: Any) -> None:
        role = item.get("role")
        if role == "assistant":
            text = fragments.output_texts(item.get("content")).strip()
            if text:
                self.turns.append(Turn("assistant", text, "message", utc(ts)))
            return
        if role != "user":  # developer / system: harness instructions
            return
        parts = fragments.item_texts(item)
        for text, _ in parts:
            if MEMGIT_MARKER in text:
                self.injected += 1
            if self._cwd["environment"] is None:
                self._cwd["environment"] = fragments.environment_cwd(text)
            if (rules := fragments.instructions(text)) and rules not in self._instructions:
                self._instructions.add(rules)  # sent again after a resume or a compaction: kept once
                self.turns.append(Turn("user", trim(rules, PROMPT_HEAD, 0, self.clean), "instructions", utc(ts)))
        metadata = item.get("metadata")
        if not self.bare or (isinstance(metadata, dict) and metadata.get("inherited_user_message")):
            return  # envelope: the person's words come from the events
        for text, own in parts:
            if not own and not fragments.instructions(text) and MEMGIT_MARKER not in text:
                self._harness(fragments.unwrap(text), ts)
        typed = "\n".join(text for text, own in parts if own and MEMGIT_MARKER not in text)
        if typed.strip():
            self._user_text(typed, ts)

    def _call(self, item: dict[str, Any], ts: Any) -> None:
        call_id = item.get("call_id") or item.get("id")
        call_id = call_id if isinstance(call_id, str) else ""
        if call_id and call_id in self.calls:  # the same call written again
            return
        name, args = tools.call_input(item)
        call = ToolCall(id=call_id, name=name, input=trim_value(args, self.clean), kind=tools.kind(name))
        if item.get("type") == "local_shell_call" and item.get("status") == "completed":
            call.answered = True
        self._attach(call, ts)

    def _output(self, item: dict[str, Any]) -> None:
        call = self._call_for(item.get("call_id"))
        if call is None:  # its call is before this range, or never was
            return
        text, failed = tools.output_text(item.get("output"))
        call.answered = True
        if call.id in self._completed:  # an end event gave the fuller output already
            return
        output, said, declined = tools.answer(call.kind, text, failed)
        call.output = trim_output(output, self.clean)
        # A refusal is the call failing (the tool never ran); a call the person declined is their choice.
        call.is_error = declined is None and (bool(failed) or (bool(said) and not output))
        call.declined = declined
        if said:
            call.harness = harness_text(said, self.clean)

    def _web_search(self, item: dict[str, Any], ts: Any) -> None:
        action = item.get("action") if isinstance(item.get("action"), dict) else {}
        query = action.get("query") if isinstance(action.get("query"), str) else ""
        call_id = item.get("call_id") or item.get("id")
        call = ToolCall(id=call_id if isinstance(call_id, str) else "", name="web_search", kind="web",
                        input=trim_value({"query": query}, self.clean) if query else {},
                        answered=item.get("status") == "completed")
        self._attach(call, ts)

    def _attach(self, call: ToolCall, ts: Any) -> None:
        """Add a call to the agent's current turn (a new one when the person spoke last)."""
        if not self.turns or self.turns[-1].role != "assistant":
            self.turns.append(Turn("assistant", "", "message", utc(ts)))
        self.turns[-1].tool_calls.append(call)
        if call.id:
            self.calls[call.id] = call

    # -- the person's words -----------------------------------------------------------------

    def _user_text(self, text: str, ts: Any, *, summary: bool = False) -> None:
        """A user message: the person's words, harness text (injected context, an IDE's attachments), or both."""
        if MEMGIT_MARKER in text:
            self.injected += 1
            return
        stripped = text.strip()
        if summary or stripped.startswith(fragments.COMPACTION_PREFIX):
            text = fragments.summary(stripped)
            if text:
                self.turns.append(Turn("user", text, "compact_summary", utc(ts)))  # prime input: kept whole
            return
        if fragments.is_injected(stripped):
            self._harness(fragments.unwrap(stripped), ts)
            return
        attached, words = fragments.request(stripped)
        if attached:
            self._harness(attached, ts)
        if words.strip():
            self.turns.append(Turn("user", trim(words.strip(), PROMPT_HEAD, PROMPT_TAIL, self.clean), "prompt", utc(ts)))

    def _harness(self, text: str, ts: Any) -> None:
        if text.strip():
            self.turns.append(Turn("user", harness_text(text, self.clean), "harness", utc(ts)))

    def _user_message(self, payload: dict[str, Any], ts: Any) -> None:
        if payload.get("kind") in ("user_instructions", "environment_context"):  # ≤ 0.4x: injected
            return
        text = payload.get("message") if isinstance(payload.get("message"), str) else ""
        if not text.strip() and (payload.get("images") or payload.get("local_images")):
            text = "[image]"
        if text.strip():
            self._user_text(text, ts)

    def _turn_aborted(self, payload: dict[str, Any], ts: Any) -> None:
        if payload.get("reason") == "interrupted":  # the person pressed Esc
            self.turns.append(Turn("user", INTERRUPTED, "interrupt", utc(ts)))

    def _rolled_back(self, payload: dict[str, Any], ts: Any) -> None:
        """Drop the last `num_turns` exchanges: the person took them back."""
        count = payload.get("num_turns")
        if isinstance(count, bool) or not isinstance(count, int) or count <= 0:
            return
        prompts = [i for i, t in enumerate(self.turns) if t.role == "user" and t.kind == "prompt"]
        if prompts:
            del self.turns[prompts[-min(count, len(prompts))]:]

    def _thread_name(self, payload: dict[str, Any], ts: Any) -> None:
        name = payload.get("thread_name")
        if isinstance(name, str) and name.strip():
            self.title = name.strip()

    # -- end events: fuller outputs and error flags -----------------------------------------

    def _exec_end(self, payload: dict[str, Any], ts: Any) -> None:
        call = self._call_for(payload.get("call_id"))
        if call is None:  # a `!` command the person ran, or a call before this range
            return
        self._complete(call, tools.exec_output(payload), tools.exit_failed(payload.get("exit_code")))

    def _patch_end(self, payload: dict[str, Any], ts: Any) -> None:
        call = self._call_for(payload.get("call_id"))
        if call is None:
            return
        changes = payload.get("changes")
        if isinstance(changes, dict) and changes and "files" not in call.input:
            call.input["files"] = [str(path) for path in changes]
            call.input.setdefault("file_path", call.input["files"][0])
        output = "\n".join(payload[k] for k in ("stdout", "stderr") if isinstance(payload.get(k), str) and payload[k])
        success = payload.get("success")
        self._complete(call, output, None if not isinstance(success, bool) else not success)

    def _mcp_end(self, payload: dict[str, Any], ts: Any) -> None:
        call = self._call_for(payload.get("call_id"))
        if call is not None:
            self._complete(call, *tools.mcp_result(payload.get("result")))

    def _item_completed(self, payload: dict[str, Any], ts: Any) -> None:
        """Paginated rollouts: the person's words and the ends of tool calls, as thread items."""
        item = payload.get("item")
        if not isinstance(item, dict):
            return
        kind = _text(item.get("type"))
        if kind == "UserMessage":
            content = item.get("content")
            texts = [p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)] \
                if isinstance(content, list) else []
            if texts:
                self._user_text("\n".join(texts), ts)
            return
        call = self._call_for(item.get("id"))
        if kind == "CommandExecution" and call is not None:
            self._complete(call, tools.exec_output(item), tools.exit_failed(item.get("exit_code")))
        elif kind == "FileChange" and call is not None:
            self._complete(call, "", True if item.get("status") == "failed" else None)
        elif kind == "McpToolCall" and call is not None:
            self._complete(call, *tools.mcp_result(item.get("result")))
        elif kind not in ITEM_KINDS:
            self.skipped += 1

    def _call_for(self, call_id: Any) -> ToolCall | None:
        return self.calls.get(call_id) if isinstance(call_id, str) else None

    def _complete(self, call: ToolCall, output: str, failed: bool | None) -> None:
        if output.strip():
            call.output = trim_output(output, self.clean)
            self._completed.add(call.id)
        if failed is not None:
            call.is_error = failed
        call.answered = True


def _text(value: Any) -> str:
    """A record's kind as a string ("" when it is not one: a kind is data, not to be trusted)."""
    return value if isinstance(value, str) else ""


def uuid7_ms(value: Any) -> int | None:
    """The creation time (ms since the epoch) a UUIDv7 carries, or None for any other value."""
    if not isinstance(value, str) or len(value) != 36 or value[14:15] != "7":
        return None
    try:
        return int(value[:8] + value[9:13], 16)
    except ValueError:
        return None
