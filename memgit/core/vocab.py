"""The words memgit's repository is built from, spelled once: branch names, file names, learning types."""

MAIN = "main"
PREFIX = "projects/"
SUMMARY_FILE = "memory_summary.md"
MARKER = "<memgit-context"  # the Claude Code reader drops any user text holding it (claude_records.py)
TYPE_RANK = {"preference": 0, "convention": 1, "gotcha": 2, "command": 3, "decision": 4, "fact": 5}
