"""Claude Code's session files: `<config dir>/projects/<folder>/<session>.jsonl`, subagents left out.

Apart from the reader so that listing sessions (every sync, even one with nothing new) never loads
the record parser.
"""

from __future__ import annotations

import os
from pathlib import Path

from memgit.core.model import AGENT_CLAUDE_CODE as AGENT
from memgit.errors import TranscriptError
from memgit.sources.files import Listing, SessionFile


def projects_dir(claude_root: Path) -> Path:
    """Return where Claude Code keeps its transcripts under its config directory."""
    return claude_root / "projects"


def discover(projects_dir: Path) -> list[SessionFile]:
    """List the main transcripts `<projects_dir>/<project>/*.jsonl`, subagent files excluded.

    Raises:
        TranscriptError: the projects directory exists but cannot be listed.
    """
    return scan(projects_dir).files


def scan(projects_dir: Path) -> Listing:
    """List the main transcripts, and say which project folders could not be read and why.

    Raises:
        TranscriptError: the projects directory exists but cannot be listed.
    """
    try:
        projects = os.scandir(projects_dir)
    except (FileNotFoundError, NotADirectoryError):
        return Listing([], {})
    except OSError as e:
        raise TranscriptError(f"cannot list {projects_dir}: {e.strerror}; check its permissions") from e
    found: list[SessionFile] = []
    unreadable: dict[str, str] = {}
    with projects:
        for project in projects:
            try:
                if not project.is_dir():
                    continue
                entries = os.scandir(project.path)
            except FileNotFoundError:  # removed while we list: nothing to read
                continue
            except OSError as e:  # locked: said by `status` and `sync`, read once it is readable
                unreadable[project.name] = e.strerror or str(e)
                continue
            base = Path(project.path)
            with entries:
                for entry in entries:
                    name = entry.name
                    if not name.endswith(".jsonl") or name.startswith("agent-"):
                        continue
                    try:
                        if not entry.is_file():  # a directory, or a symlink to nothing
                            continue
                        st = entry.stat()
                    except FileNotFoundError:  # deleted between listing and stat
                        continue
                    except OSError as e:  # listable but not searchable (no x bit): its files cannot be read
                        unreadable[project.name] = e.strerror or str(e)
                        continue
                    found.append(SessionFile(name[:-6], base / name, project.name, st.st_size, st.st_mtime, AGENT))
    found.sort(key=lambda s: (s.project_dir, s.session_id))
    return Listing(found, unreadable)
