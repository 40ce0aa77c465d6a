"""What a tool call does, for the extractors: the neutral kind its source gave it (ToolCall.kind).

Each source maps its agent's tool names to these kinds, so no extractor compares tool names.
"""

from __future__ import annotations

from memgit.core.model import ToolCall


def kind(call: ToolCall) -> str:
    """What a call does ("shell", "edit", "read", "subagent"…; "" when unknown)."""
    return call.kind


def is_edit(call: ToolCall) -> bool:
    return call.kind == "edit"


def touched_text(call: ToolCall) -> str:
    """The code an edit touched, before and after: a replacement's old and new strings, a written
    file, a patch's lines."""
    data = call.input
    parts = [data.get(key) for key in ("old_string", "new_string", "content", "patch", "input")]
    for edit in data.get("edits") or ():
        if isinstance(edit, dict):
            parts += [edit.get("old_string"), edit.get("new_string")]
    return "\n".join(part for part in parts if isinstance(part, str))
