"""The values the pipeline passes around: a normalised transcript, learnings and notes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memgit.core.vocab import LEARNING_TYPES  # noqa: F401  (re-exported: a learning's type is one of them)

# Where a source cut a long text to its head and tail (memgit.sources.trim), on a line of its own; what
# reads such text (memgit.core.evidence, memgit.extract.heuristic.text) finds the line by TRIMMED_PATTERN.
TRIMMED = "…[{} chars trimmed]…"
TRIMMED_PATTERN = r"…\[\d+ chars trimmed\]…"

AGENT_CLAUDE_CODE = "claude-code"
AGENT_CODEX = "codex"
AGENT_GEMINI = "gemini-cli"

OUTCOMES = ("success", "partial", "fail", "uncertain")

# Where a piece of a transcript came from. Only the person's own words can be a preference or a
# correction; the agent's words say what it found and did; text the harness generated (its
# reminders, a hook's output, IDE context, a command's output or boilerplate, a marker, a notice
# that a call was refused) is never a learning. The sources know each agent's formats and mark every
# turn; the extractors read the marks, never the formats.
PERSON, AGENT, HARNESS = "person", "agent", "harness"

# The kinds of a user turn, each with the origin of its text. A source splits a user record that
# mixes the person's words with harness text (an IDE's context before a prompt, a reminder after
# it, a plan inside the harness's wrapper) into one turn per part, so that each turn has one origin.
USER_KINDS = {
    "prompt": PERSON,  # what the person typed
    "queued": PERSON,  # a prompt typed while the agent was busy
    "command": PERSON,  # a slash command or shell escape the person ran: its name and arguments
    "instructions": PERSON,  # the project's instruction file (AGENTS.md, GEMINI.md…) the harness loaded: its people's standing rules
    "plan": AGENT,  # a plan the agent wrote and the person approved, put back by the harness to be implemented
    "compact_summary": AGENT,  # the agent's own recap when its context filled up (prime input)
    "interrupt": HARNESS,  # the harness's marker that the person interrupted the agent (the act is theirs, the words are not)
    "harness": HARNESS,  # anything else the harness, a hook or a command put in the person's turn
}

# What a tool call does, whatever the agent calls the tool: sources map their tool names to these
# (the empty kind is a tool the source does not classify), so the extractors never need to know
# an agent's tool names. A "shell" call carries its command line under `command` (or `cmd`), an
# "edit" or "read" call its file under `file_path`.
TOOL_KINDS = ("shell", "edit", "read", "search", "subagent", "todo", "web", "memory", "plan")  # plan: a plan put to the user


@dataclass(slots=True)
class ToolCall:
    """One tool call of an assistant turn, with its result when one came back."""

    id: str
    name: str
    input: dict[str, Any] = field(default_factory=dict)  # long string values trimmed by the source
    output: str = ""  # trimmed text of the result (head and tail kept)
    is_error: bool = False
    answered: bool = False  # False when no tool_result ever arrived (interrupt, crash)
    kind: str = ""  # one of TOOL_KINDS, or "" when the source does not say
    declined: str | None = None  # the person turned the call down: their words ("" when they gave none)
    # What the harness answered in the tool's place or around its output: a rejection's or an
    # approval's boilerplate, a refusal by a permission rule, a policy or a hook, a subagent's
    # bookkeeping. Never the tool's output: a call the harness answered instead has `output` "".
    harness: str = ""

    @property
    def ran(self) -> bool:
        """True when the tool itself answered: not left unanswered, declined or refused by the harness."""
        return self.answered and self.declined is None and not (self.harness and not self.output)

    @property
    def command(self) -> str | None:
        """The shell command line, for shell-like tools."""
        value = self.input.get("command") or self.input.get("cmd")
        if isinstance(value, list):
            value = " ".join(str(v) for v in value)
        return value if isinstance(value, str) else None

    @property
    def file_path(self) -> str | None:
        value = self.input.get("file_path") or self.input.get("path") or self.input.get("notebook_path")
        return value if isinstance(value, str) else None


@dataclass(slots=True)
class Turn:
    """One user or assistant turn (assistant records grouped by message id)."""

    role: str  # "user" | "assistant"
    text: str = ""
    kind: str = "message"  # assistant: "message"; user: one of USER_KINDS
    timestamp: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    sidechain: bool = False  # folded in from a subagent transcript

    @property
    def origin(self) -> str:
        """PERSON, AGENT or HARNESS: who wrote this turn's text (a subagent's "user" is the agent)."""
        if self.role != "user":
            return AGENT
        origin = USER_KINDS.get(self.kind, HARNESS)  # a kind no source should make: never the person's
        return AGENT if self.sidechain and origin == PERSON else origin


@dataclass(slots=True)
class Transcript:
    """A session (or the part of it in one byte range), normalised across agents."""

    session_id: str  # the ledger key: the main file's stem for Claude Code
    agent: str
    source: str  # path of the main transcript file
    cwd: str | None = None  # the session's starting directory, read from the records
    git_branch: str | None = None
    started: str | None = None  # ISO 8601 UTC, "Z"
    ended: str | None = None
    title: str | None = None  # from summary / ai-title records when present
    version: str | None = None
    turns: list[Turn] = field(default_factory=list)
    start: int = 0  # byte range of the main file this transcript covers
    end: int = 0
    bad_lines: int = 0  # lines that were not JSON, skipped and counted
    records: int = 0  # records read in the range (all types)
    subagents: int = 0  # subagent files folded in
    injected: int = 0  # memgit's own injected context found and skipped
    skipped: int = 0  # records of a type or subtype the reader does not know, ignored
    cut: int = 0  # bytes at the end of a file no longer written that are no complete record: passed over
    # What the agent's harness ran on its own around the tool calls (Claude Code's hooks), each once
    # in order of first run: (when: "before" | "after", the tool's kind, command), e.g. ("after",
    # "edit", "uv run ruff format").
    hooks: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def ledger_id(self) -> str:
        return f"{self.agent}/{self.session_id}"


@dataclass(frozen=True, slots=True)
class Learning:
    type: str  # one of LEARNING_TYPES
    text: str


@dataclass(slots=True)
class Note:
    """One session note: front matter plus a title, a summary and typed learnings."""

    session: str  # "<agent>/<session id>"
    agent: str
    project: str
    title: str
    summary: str = ""
    learnings: list[Learning] = field(default_factory=list)
    cwd: str | None = None
    git_branch: str | None = None
    started: str | None = None
    ended: str | None = None
    outcome: str = "uncertain"
    extractor: str = "heuristic/1"
    keywords: list[str] = field(default_factory=list)
    slug: str = ""
    extra: dict[str, Any] = field(default_factory=dict)  # unknown front-matter keys, kept as they were
    body_extra: str = ""  # markdown after the Learnings section, kept as it was

    @property
    def id8(self) -> str:
        return self.session.rsplit("/", 1)[-1][:8]


@dataclass(slots=True)
class Extraction:
    """What an extractor made of a transcript: a note, or the reason there is none."""

    note: Note | None
    reason: str = ""  # why nothing was kept (a skip), or a short comment
    tokens: int = 0
    cost: float | None = None
    prompt: str = ""  # hash of the prompt used (LLM extractors)


@dataclass(slots=True)
class Consolidation:
    """What a consolidator made of a scope's notes: MEMORY.md, the injected summary and skills."""

    memory_md: str
    summary_md: str
    skills: dict[str, str] = field(default_factory=dict)  # skill name -> SKILL.md text
    consolidator: str = "heuristic/1"
    tokens: int = 0
    cost: float | None = None
    prompt: str = ""
