"""What a tool call does, for the extractors: the neutral kind its source gave it (ToolCall.kind).

A source that does not classify its calls yet (the Claude Code reader) leaves the kind empty; its
tool names are mapped here until it does, so that every extractor asks `kind(call)` and none
compares tool names.
"""

from __future__ import annotations

from memgit.core.model import ToolCall

_UNCLASSIFIED = {"Edit": "edit", "Write": "edit", "MultiEdit": "edit", "NotebookEdit": "edit",
                 "str_replace_based_edit_tool": "edit", "Task": "subagent", "Agent": "subagent",
                 "Bash": "shell", "Read": "read", "Grep": "search", "Glob": "search"}


def kind(call: ToolCall) -> str:
    """What a call does ("shell", "edit", "read", "subagent"…; "" when unknown)."""
    return call.kind or _UNCLASSIFIED.get(call.name, "")


def is_edit(call: ToolCall) -> bool:
    return kind(call) == "edit"
