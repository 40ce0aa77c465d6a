"""What each Claude Code tool does, in the neutral kinds of memgit.core.model.TOOL_KINDS."""

import re

KINDS = {
    "Bash": "shell", "BashOutput": "shell",
    "Edit": "edit", "Write": "edit", "MultiEdit": "edit", "NotebookEdit": "edit", "str_replace_based_edit_tool": "edit",
    "Read": "read", "NotebookRead": "read",
    "Grep": "search", "Glob": "search", "LS": "search",
    "Task": "subagent", "Agent": "subagent",
    "TodoWrite": "todo",
    "WebFetch": "web", "WebSearch": "web",
    "ExitPlanMode": "plan",
}


# Where Claude Code's auto memory lives (transcript-formats §6): a write there is a "memory" call
# (memgit.sources.memory_writes), not an edit of the project.
MEMORY_PATHS = re.compile(r"/\.claude/(?:projects/[^/]+/memory|agent-memory(?:-local)?/[^/]+)/[^/]+\.md$")


def kind(name: str) -> str:
    """The neutral kind of a Claude Code tool ("" for one memgit does not classify: MCP tools…)."""
    return KINDS.get(name, "")
