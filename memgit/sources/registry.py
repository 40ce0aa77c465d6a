"""The agents memgit reads: one line per source package, and the few calls everything else makes.

A source package (`claude_code/`, `codex/`, `gemini/`) shows one face:

    AGENT: str                                             the ledger's agent name
    default_root(env) -> Path                              where the agent keeps its files
    scan(root) -> Listing                                  its session files, and unreadable folders
    read_transcript(path, *, start, session_id, clean)     a byte range as a normalised Transcript
    peek_cwd(path) -> str | None                           the session's directory (the scope hint)
    native_memory.discover(root, home) -> [AgentMemory]    the agent's own memory files (memory_files.py)

Nothing outside `memgit/sources/` knows an agent's file format; adding an agent is its package and
one line in PACKAGES (and its root in memgit.config). A source also says where each piece of text
came from (memgit.core.model: a user turn's kind gives its origin, a tool call keeps the harness's
answer in `harness`, apart from the tool's `output`): it splits what its agent's harness wrote from
the person's words, so that the extractors never need to recognise it (sources/harness.py holds
what the sources share).
"""

from __future__ import annotations

import hashlib
import importlib
from pathlib import Path
from types import ModuleType

from memgit.core.model import Transcript
from memgit.errors import TranscriptError
from memgit.sources.files import Listing, SessionFile, stream_size

PACKAGES = {  # agent -> (package, the memgit.config.Config field holding its root)
    "claude-code": ("memgit.sources.claude_code", "claude_root"),
    "codex": ("memgit.sources.codex", "codex_root"),
    "gemini-cli": ("memgit.sources.gemini", "gemini_root"),
}


# Where a person moves an agent's home for memgit: the config key, and the agent's own variable.
SETTINGS = {
    "claude-code": "[sources] claude_code in the config file, or CLAUDE_CONFIG_DIR",
    "codex": "[sources] codex in the config file, or CODEX_HOME",
    "gemini-cli": "[sources] gemini in the config file, or GEMINI_CLI_HOME",
}


def package(agent: str) -> ModuleType:
    """The source package of `agent` (imported on first use: a sync that reads one agent loads one)."""
    return importlib.import_module(PACKAGES[agent][0])


def root(agent: str, cfg) -> Path:
    return getattr(cfg, PACKAGES[agent][1])


def agents(cfg) -> tuple[str, ...]:
    """The agents this configuration reads, in registry order."""
    return tuple(a for a in PACKAGES if a in cfg.agents)


def looked_in(cfg) -> list[dict]:
    """Each enabled agent's home and the setting that moves it: what to say when none holds a session."""
    return [{"agent": a, "folder": str(root(a, cfg)), "setting": SETTINGS[a]} for a in agents(cfg)]


def own_memory(agent: str, cfg, home: Path) -> list:
    """The notes `agent` keeps for itself, as memgit.sources.memory_files.AgentMemory units (each
    package's `native_memory.discover(root, home)`)."""
    return importlib.import_module(f"{PACKAGES[agent][0]}.native_memory").discover(root(agent, cfg), home)


def scan(cfg) -> Listing:
    """Every enabled agent's session files; unreadable folders named `<agent>:<folder>`.

    An agent whose home cannot be listed at all is reported as an unreadable folder too: the
    others are still read.
    """
    files: list[SessionFile] = []
    unreadable: dict[str, str] = {}
    for agent in agents(cfg):
        try:
            listing = package(agent).scan(root(agent, cfg))
        except TranscriptError as e:
            unreadable[f"{agent}:{root(agent, cfg).name}"] = e.message
            continue
        files += listing.files
        unreadable.update({f"{agent}:{folder}": why for folder, why in listing.unreadable.items()})
    return Listing(files, unreadable)


def read(file: SessionFile, *, start: int, session_id: str | None = None, clean=None) -> Transcript:
    """Read `file` from byte `start` (its agent's offsets) into a Transcript."""
    return package(file.agent).read_transcript(file.path, start=start, session_id=session_id, clean=clean)


def peek_cwd(file: SessionFile) -> str | None:
    return package(file.agent).peek_cwd(file.path)


def length(file: SessionFile) -> int:
    """The file's length in its reader's offsets: its size, or a compressed file's decompressed size
    (which costs reading it: only asked when a compressed file may hold bytes not yet read)."""
    return stream_size(file.path) if file.compressed else file.size


def ran_in(file: SessionFile, folder: Path) -> bool:
    """True for a session run in `folder` or below: an agent CLI memgit ran as a model
    (memgit.config.model_workdir), whose session must never become memory."""
    cwd = peek_cwd(file)
    if cwd is None:  # Gemini CLI before v0.29 names the folder by the SHA-256 of the project root alone
        return hashlib.sha256(str(folder).encode()).hexdigest() in file.project_dir.split("/")
    return cwd == str(folder) or cwd.startswith(str(folder).rstrip("/") + "/")
