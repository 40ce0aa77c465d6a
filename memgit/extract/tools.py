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


def edited_paths(call: ToolCall) -> list[str]:
    """The files an edit wrote: one, or each of a patch's (Codex's apply_patch lists them all)."""
    files = call.input.get("files")
    if isinstance(files, list) and all(isinstance(f, str) for f in files):
        return files
    return [call.file_path] if call.file_path else []


def replacements(call: ToolCall) -> list[tuple[str, str]]:
    """An edit's texts before and after: a replacement, each of a multi-edit's, a written file ("" before)."""
    data = call.input
    pairs: list[tuple[str, str]] = []
    if isinstance(data.get("new_string"), str):
        pairs.append((str(data.get("old_string") or ""), data["new_string"]))
    for edit in data.get("edits") or ():
        if isinstance(edit, dict) and isinstance(edit.get("new_string"), str):
            pairs.append((str(edit.get("old_string") or ""), edit["new_string"]))
    if isinstance(data.get("content"), str):
        pairs.append(("", data["content"]))
    return pairs


def patches(call: ToolCall) -> list[str]:
    """An edit given as a patch (Codex's apply_patch): its text, lines marked + and -."""
    return [call.input[key] for key in ("patch", "input") if isinstance(call.input.get(key), str)]


def touched_text(call: ToolCall) -> str:
    """The code an edit touched, before and after: a replacement's old and new strings, a written
    file, a patch's lines."""
    parts = [text for pair in replacements(call) for text in pair if text] + patches(call)
    return "\n".join(parts)
