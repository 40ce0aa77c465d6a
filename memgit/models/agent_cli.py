"""Run an agent CLI as a model: one non-interactive call, prompt on stdin, in memgit's own folder.

What every CLI call shares:
- the child is never part of the session that started memgit: the variables that mark a running
  agent session (CLAUDECODE, CLAUDE_CODE_SESSION_ID, CODEX_THREAD_ID, GEMINI_CLI …) are removed
  from its environment, memgit's own too; each backend also turns the CLI's hooks off;
- it runs in a dedicated working folder (`memgit.config.model_workdir`) whose sessions memgit's
  sources skip, for a CLI that writes its session to disk anyway;
- a timeout kills the child's whole process group;
- failures come back as one `Failure` of a kind the caller's retry rules know: `auth` (not installed,
  signed out: no call in this run can succeed), `transient` (rate limit, overload, timeout: retried
  with backoff), `rejected` (anything else: this request failed).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from memgit.core.redact import redact

# Variables a running agent session sets for the programs it starts (Claude Code docs env-vars.md,
# 2.1.240; Codex's exec sandbox; Gemini CLI's shell tool), and memgit's own: none may reach the child.
SESSION_MARKERS = ("CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_CODE_SESSION_ID", "CLAUDE_CODE_CHILD_SESSION",
                   "CLAUDE_PROJECT_DIR", "CLAUDE_ENV_FILE", "CLAUDE_CODE_SSE_PORT", "CODEX_THREAD_ID",
                   "CODEX_SANDBOX", "CODEX_SANDBOX_NETWORK_DISABLED", "CODEX_CI", "GEMINI_CLI",
                   "GEMINI_CLI_IDE_SERVER_PORT", "GEMINI_CLI_IDE_WORKSPACE_PATH")
MARKER_PREFIXES = ("MEMGIT_",)

_AUTH = re.compile(r"not logged in|log ?in|signed out|sign in|/auth\b|unauthori[sz]ed|authenticat|invalid api key|"
                   r"api key|credentials|\b401\b|\b403\b|oauth", re.I)
_TRANSIENT = re.compile(r"rate.?limit|\b429\b|\b529\b|quota|usage limit|session limit|weekly limit|overloaded|"
                        r"resource.?exhausted|temporarily|try again|timed? ?out|\b50[0234]\b|unavailable", re.I)


class Failure(Exception):
    """A CLI call that failed: `kind` is auth, transient or rejected; `message` one redacted line."""

    def __init__(self, kind: str, message: str, *, prompt_tokens: int = 0, completion_tokens: int = 0,
                 cost: float | None = None):
        super().__init__(message)
        self.kind, self.message = kind, message
        self.prompt_tokens, self.completion_tokens, self.cost = prompt_tokens, completion_tokens, cost


@dataclass(frozen=True, slots=True)
class Answer:
    """What the CLI answered, and what the call cost by its own account."""

    content: str
    prompt_tokens: int
    completion_tokens: int
    cost: float | None  # USD; None when the CLI does not say (a subscription's CLI often does not)
    cut: bool = False  # the answer stopped at the output limit


def child_env(environ: Mapping[str, str], extra: Mapping[str, str] = ()) -> dict[str, str]:
    """The child's environment: the parent's without the session markers, plus `extra`."""
    env = {k: v for k, v in environ.items() if k not in SESSION_MARKERS and not k.startswith(MARKER_PREFIXES)}
    env.update(dict(extra))
    return env


def one_line(text: str, limit: int = 240) -> str:
    """A CLI's message on one line, secrets redacted."""
    return redact(" ".join(str(text).split())[:limit]) or "(no message)"


def kind_of(text: str) -> str:
    """auth, transient or rejected, from what a CLI said about a failure."""
    if _TRANSIENT.search(text) and not re.search(r"not logged in|invalid api key|/login", text, re.I):
        return "transient"
    return "auth" if _AUTH.search(text) else "rejected"


def run(executable: str, args: list[str], *, stdin: str, workdir: Path, timeout: float,
        env: Mapping[str, str]) -> tuple[int, str, str]:
    """Run `executable args` with `stdin` in `workdir`; return (exit code, stdout, stderr).

    Raises:
        Failure: (auth) the executable is not on PATH; (transient) it outlasted `timeout`.
    """
    path = shutil.which(executable, path=env.get("PATH"))
    if path is None:
        raise Failure("auth", f"`{executable}` is not installed (not found on PATH)")
    workdir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen([path, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=workdir, env=dict(env), start_new_session=True)  # its own group: killed whole
    try:
        out, err = proc.communicate(stdin.encode("utf-8"), timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:  # it ended at that instant
            pass
        proc.communicate()
        raise Failure("transient", f"timed out after {timeout:g} s") from None
    return proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def json_objects(text: str) -> list[dict]:
    """The JSON objects in a CLI's output: the whole text, or one per line (JSONL)."""
    text = text.strip()
    if not text:
        return []
    try:
        value = json.loads(text)
        return [value] if isinstance(value, dict) else []
    except ValueError:
        pass
    found = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                found.append(value)
    return found


def failed(code: int, said: str, executable: str) -> Failure:
    """The Failure for a call that ended with `code` and said `said`."""
    return Failure(kind_of(said), f"`{executable}` exited with {code}: {one_line(said)}")


def number(value, default=0):
    """A count or price from a CLI's JSON (ints, floats; anything else is `default`)."""
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else default
