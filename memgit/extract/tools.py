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
