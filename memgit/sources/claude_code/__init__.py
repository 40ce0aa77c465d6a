"""Claude Code transcripts (`$CLAUDE_CONFIG_DIR/projects/<folder>/<session>.jsonl`) as Transcripts.

The package's face is the one every source shows (see memgit.sources.registry): AGENT,
default_root, scan, discover, read_transcript, peek_cwd.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from memgit.sources.claude_code.discovery import AGENT, projects_dir
from memgit.sources.claude_code.discovery import scan as _scan_projects
from memgit.sources.files import Listing, SessionFile, lazy_reader

__getattr__ = lazy_reader(__name__)  # read_transcript, peek_cwd: the reader is imported on first use


def default_root(env: Mapping[str, str]) -> Path:
    """Where Claude Code keeps its files: `$CLAUDE_CONFIG_DIR`, else `~/.claude`."""
    if env.get("CLAUDE_CONFIG_DIR"):
        return Path(os.path.expanduser(env["CLAUDE_CONFIG_DIR"]))
    return Path(env.get("HOME") or Path.home()) / ".claude"


def scan(root: Path) -> Listing:
    """The main transcripts under `<root>/projects`, and the folders that could not be read."""
    return _scan_projects(projects_dir(Path(root)))


def discover(root: Path) -> list[SessionFile]:
    return scan(root).files


__all__ = ["AGENT", "SessionFile", "default_root", "discover", "peek_cwd", "read_transcript", "scan"]
