"""An agent's writes into its own memory, as a transcript shows them: not an edit of the project.

Claude Code's auto memory and Gemini CLI's memory files are written with the agents' ordinary file
tools (Write/Edit, write_file/replace) at paths only the agent's memory uses; Gemini CLI's older
`save_memory` tool takes the fact itself. The sources give such a call the neutral kind "memory"
and put what was remembered under `fact` (a topic file's front matter dropped, its `type` under
`memory_type`), so the extractors read every agent's memory writes alike and count none of them
as a change to the project.
"""

from __future__ import annotations

import re

from memgit.core.model import ToolCall

_FRONT_MATTER = re.compile(r"\A---\s*\n(?P<meta>.*?)\n---\s*\n?", re.S)
_TYPE = re.compile(r"^type:\s*['\"]?(?P<type>[\w-]+)", re.M)
_DESCRIPTION = re.compile(r"^description:\s*['\"]?(?P<text>.+?)['\"]?\s*$", re.M)
INDEX = "MEMORY.md"  # one line per memory, pointing at its topic file: the pointer, not the memory


def mark(call: ToolCall, memory_paths: re.Pattern) -> None:
    """Make a file edit at one of the agent's memory paths a "memory" call holding what it remembered."""
    path = (call.file_path or "").replace("\\", "/")
    if call.kind != "edit" or not memory_paths.search(path):
        return
    call.kind = "memory"
    if path.rsplit("/", 1)[-1] == INDEX:
        return
    added = _added(call)
    found = _FRONT_MATTER.match(added)
    meta, body = (found.group("meta"), added[found.end():]) if found else ("", added)
    fact = body.strip() or ((m := _DESCRIPTION.search(meta)) and m.group("text")) or ""
    if fact:
        call.input["fact"] = fact
    if kind := _TYPE.search(meta):
        call.input["memory_type"] = kind.group("type").lower()


def _added(call: ToolCall) -> str:
    """What the write put in: a whole file, or a replacement's lines that were not there before."""
    content = call.input.get("content")
    if isinstance(content, str):
        return content
    new, old = call.input.get("new_string"), call.input.get("old_string")
    if not isinstance(new, str):
        return ""
    before = set(old.splitlines()) if isinstance(old, str) else set()
    return "\n".join(line for line in new.splitlines() if line not in before)
