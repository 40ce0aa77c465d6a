"""Synthetic Claude Code transcripts, written by memgit itself (demo, tests, benchmarks).

They follow the real format (transcript-formats §1): one JSON record per line, the envelope
fields, assistant content blocks, tool_use / tool_result pairs and toolUseResult.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path


DECLINED = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file "
            "edit, the new_string was NOT written to the file).")


def encode_project_dir(cwd: str) -> str:
    """Claude Code's folder name for a cwd: every non-alphanumeric character becomes '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


@dataclass
class SessionWriter:
    """Builds the records of one session; `lines()` returns them as JSONL."""

    session_id: str
    cwd: str
    start: datetime = field(default_factory=lambda: datetime(2026, 11, 20, 10, 0, tzinfo=timezone.utc))
    git_branch: str = "main"
    version: str = "2.1.17"
    records: list[dict] = field(default_factory=list)
    _clock: int = 0
    _parent: str | None = None
    _n: int = 0

    def _stamp(self) -> str:
        self._clock += 7
        return (self.start + timedelta(seconds=self._clock)).strftime("%Y-%m-%dT%H:%M:%S.000Z")

    def _uuid(self) -> str:
        self._n += 1
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.session_id}/{self._n}"))

    def _envelope(self, kind: str) -> dict:
        uid = self._uuid()
        record = {
            "parentUuid": self._parent, "isSidechain": False, "userType": "external",
            "cwd": self.cwd, "sessionId": self.session_id, "version": self.version,
            "gitBranch": self.git_branch, "type": kind, "uuid": uid, "timestamp": self._stamp(),
        }
        self._parent = uid
        return record

    def user(self, text: str | list, **fields) -> "SessionWriter":
        """A user record: a string or content blocks; `fields` adds record fields (isMeta, planContent…)."""
        self.records.append({**self._envelope("user"), "message": {"role": "user", "content": text}, **fields})
        return self

    def assistant(self, text: str) -> "SessionWriter":
        msg = {"id": f"msg_{self._uuid()[:12]}", "type": "message", "role": "assistant",
               "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": text}],
               "stop_reason": "end_turn", "usage": {"input_tokens": 10, "output_tokens": 20}}
        self.records.append({**self._envelope("assistant"), "message": msg})
        return self

    def tool(self, name: str, tool_input: dict, output: str, *, error: bool = False) -> "SessionWriter":
        tool_id = f"toolu_{self._uuid()[:16]}"
        msg = {"id": f"msg_{self._uuid()[:12]}", "type": "message", "role": "assistant",
               "model": "claude-sonnet-4-5",
               "content": [{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}],
               "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 20}}
        self.records.append({**self._envelope("assistant"), "message": msg})
        result = {"type": "tool_result", "tool_use_id": tool_id, "content": output, "is_error": error}
        structured = ({"stdout": output if not error else "", "stderr": output if error else "",
                       "interrupted": False, "isImage": False} if name == "Bash" else {})
        self.records.append({**self._envelope("user"), "message": {"role": "user", "content": [result]},
                             "toolUseResult": f"Error: {output}" if error else structured})
        return self

    def declined(self, name: str, tool_input: dict, words: str = "") -> "SessionWriter":
        """A call the person turned down, answered as Claude Code answers it (their words quoted, if any)."""
        answer = (f"{DECLINED} To tell you how to proceed, the user said:\n{words}" if words else
                  f"{DECLINED} STOP what you are doing and wait for the user to tell you how to proceed.")
        return self.tool(name, tool_input, answer, error=True)

    def bash(self, command: str, output: str, *, error: bool = False) -> "SessionWriter":
        return self.tool("Bash", {"command": command, "description": "run"}, output, error=error)

    def edit(self, path: str, old: str, new: str) -> "SessionWriter":
        return self.tool("Edit", {"file_path": path, "old_string": old, "new_string": new},
                         f"The file {path} has been updated.")

    def hook(self, event: str, command: str, *, progress: bool = False) -> "SessionWriter":
        """A hook run as Claude Code records it: a progress record (newer versions) or a system record
        naming the event in bold and the command in brackets (older ones)."""
        if progress:
            data = {"type": "hook_progress", "hookEvent": event.partition(":")[0], "hookName": event,
                    "command": command}
            self.records.append({**self._envelope("progress"), "data": data})
        else:
            content = f"\u001b[1m{event}\u001b[22m [{command}] completed successfully: 3 files left unchanged"
            self.records.append({**self._envelope("system"), "content": content, "isMeta": False, "level": "info"})
        return self

    def lines(self) -> str:
        return "".join(json.dumps(r) + "\n" for r in self.records)

    def write(self, projects_dir: Path) -> Path:
        folder = projects_dir / encode_project_dir(self.cwd)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.session_id}.jsonl"
        path.write_text(self.lines(), encoding="utf-8")
        return path


def session_id(seed: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_DNS, f"memgit-synthetic-{seed}"))


def demo_sessions(root: str = "/home/demo/dev") -> list[SessionWriter]:
    """A small, realistic set: a fixed test failure, stated preferences, a greeting with nothing in it."""
    api = f"{root}/pinion"
    web = f"{root}/lantern"
    day = datetime(2026, 11, 18, 9, 30, tzinfo=timezone.utc)
    first = (
        SessionWriter(session_id("pinion-1"), api, start=day, git_branch="feat/sync")
        .user("The typesense sync tests are failing, can you fix them? Always run the tests with "
              "`uv run pytest` — plain pytest misses the venv.")
        .assistant("I'll run the test suite first.")
        .bash("uv run pytest -x tests/", "E   ModuleNotFoundError: No module named 'typesense'\n"
              "FAILED tests/test_sync.py::test_full_sync - ModuleNotFoundError", error=True)
        .assistant("The typesense client is missing from the environment; adding it.")
        .bash("uv add typesense", "Resolved 42 packages\nInstalled 1 package")
        .bash("uv run pytest -x tests/", "collected 18 items\n\n18 passed in 2.31s")
        .user("Great, thanks. Don't put emoji in commit messages, I prefer plain imperative subjects.")
        .assistant("Understood: committing as 'Fix typesense sync tests'.")
        .bash("git commit -am 'Fix typesense sync tests'", "[feat/sync 1a2b3c4] Fix typesense sync tests")
    )
    second = (
        SessionWriter(session_id("pinion-2"), f"{api}/src/pinion", start=day + timedelta(days=1))
        .user("Add a --dry-run flag to the sync command. We use click for the CLI, never argparse.")
        .assistant("Adding the option to the click command.")
        .edit(f"{api}/src/pinion/cli.py", "def sync():", "def sync(dry_run: bool):")
        .bash("uv run pytest -x tests/", "collected 19 items\n\n19 passed in 2.40s")
        .bash("uv run ruff check .", "All checks passed!")
        .user("Perfect, that works.")
    )
    third = (
        SessionWriter(session_id("lantern-1"), web, start=day + timedelta(days=1, hours=3))
        .user("Build the site and fix whatever breaks.")
        .bash("npm run build", "Error: Cannot find module 'vite'\n    at Module._resolveFilename", error=True)
        .bash("npm install", "added 212 packages in 9s")
        .bash("npm run build", "vite v5.4.0 building for production...\n✓ built in 1.92s")
        .user("Use pnpm instead of npm in this repo from now on.")
        .assistant("Noted. Switching to pnpm.")
    )
    greeting = SessionWriter(session_id("hello"), web, start=day + timedelta(days=2)).user("hi").assistant(
        "Hello! How can I help?")
    return [first, second, third, greeting]
