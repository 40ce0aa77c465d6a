"""The agents memgit wires itself into, each by its own documented mechanism (one row each).

| agent       | hooks file                  | events memgit uses                                           | skills folder    |
|-------------|-----------------------------|--------------------------------------------------------------|------------------|
| Claude Code | ~/.claude/settings.json     | SessionStart, UserPromptSubmit, SessionEnd, PreCompact (s)   | ~/.claude/skills |
| Codex       | $CODEX_HOME/hooks.json      | SessionStart, UserPromptSubmit, PreCompact (s)               | ~/.agents/skills |
| Gemini CLI  | ~/.gemini/settings.json     | SessionStart, BeforeAgent, SessionEnd, PreCompress (ms)      | ~/.gemini/skills |

Sources: Claude Code's hooks and skills docs (code.claude.com/docs/en/hooks, /skills); Codex
`codex-rs/config/src/hook_config.rs` (hooks.json beside config.toml, `timeout` in seconds, no
SessionEnd event; user hooks run only once trusted in /hooks) and `core-skills/src/loader.rs`
(`$HOME/.agents/skills` for a user's skills; `$CODEX_HOME/skills` is deprecated); Gemini CLI
`docs/hooks/reference.md` (`timeout` in milliseconds, lifecycle matchers are exact strings, so none
is set; BeforeAgent is its prompt hook, additionalContext appended to that turn's prompt) and
`docs/cli/skills.md` (`~/.gemini/skills`). The prompt hook (`memgit hook user-prompt-submit`) answers in
milliseconds; its timeout only bounds a pathological wait, since the agent holds the prompt meanwhile.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

CLAUDE_CODE, CODEX, GEMINI = "claude-code", "codex", "gemini"
ALIASES = {"claude": CLAUDE_CODE, "gemini-cli": GEMINI}


@dataclass(frozen=True, slots=True)
class Hook:
    event: str  # the agent's event name
    matcher: str | None  # None: every occurrence
    arg: str  # `memgit hook <arg>`
    timeout: int  # in the agent's unit


@dataclass(frozen=True, slots=True)
class Agent:
    name: str  # what `--agent` takes
    label: str
    hooks_file: str  # below the agent's home
    hooks: tuple[Hook, ...]
    agent_arg: bool  # the hook command says `--agent NAME` (Claude Code is the default and needs none)
    named: bool = False  # handlers carry a `name` (Gemini CLI: `/hooks disable <name>`)

    def command(self, memgit: str, hook: Hook) -> str:
        return f"{memgit} hook {hook.arg}" + (f" --agent {self.name}" if self.agent_arg else "")

    def group(self, memgit: str, hook: Hook) -> dict:
        """The matcher group memgit adds to one event's list."""
        group: dict = {"matcher": hook.matcher} if hook.matcher else {}
        handler: dict = {"name": f"memgit-{hook.arg}"} if self.named else {}
        handler.update({"type": "command", "command": self.command(memgit, hook), "timeout": hook.timeout})
        group["hooks"] = [handler]
        return group


AGENTS = {
    CLAUDE_CODE: Agent(CLAUDE_CODE, "Claude Code", "settings.json", (
        Hook("SessionStart", "startup|resume|clear|compact", "session-start", 10),
        Hook("UserPromptSubmit", None, "user-prompt-submit", 5),
        # SessionEnd hooks share a 1.5 s budget that a larger timeout in a settings file would raise
        # for every hook: memgit returns in milliseconds and asks for no more than a second.
        Hook("SessionEnd", None, "session-end", 1),
        Hook("PreCompact", "manual|auto", "pre-compact", 10),
    ), agent_arg=False),
    # Codex has no SessionEnd: a compaction, and the next session start, sync what is finished.
    CODEX: Agent(CODEX, "Codex", "hooks.json", (
        Hook("SessionStart", "startup|resume|clear|compact", "session-start", 10),
        Hook("UserPromptSubmit", None, "user-prompt-submit", 5),
        Hook("PreCompact", None, "pre-compact", 10),
    ), agent_arg=True),
    # Gemini CLI does not wait for SessionEnd; PreCompress is advisory and asynchronous.
    GEMINI: Agent(GEMINI, "Gemini CLI", "settings.json", (
        Hook("SessionStart", None, "session-start", 10_000),
        Hook("BeforeAgent", None, "user-prompt-submit", 5_000),
        Hook("SessionEnd", None, "session-end", 5_000),
        Hook("PreCompress", None, "pre-compact", 10_000),
    ), agent_arg=True, named=True),
}


def resolve(name: str) -> Agent:
    """The agent `--agent NAME` means.

    Raises:
        KeyError: no such agent.
    """
    return AGENTS[ALIASES.get(name, name)]


def _home(env: Mapping[str, str]) -> Path:
    return Path(os.path.expanduser(env.get("HOME") or str(Path.home())))


def home(agent: str, env: Mapping[str, str], claude_root: Path | None = None) -> Path:
    """The agent's own folder: ~/.claude (CLAUDE_CONFIG_DIR), $CODEX_HOME or ~/.codex, ~/.gemini."""
    if agent == CLAUDE_CODE:
        return claude_root or Path(os.path.expanduser(env.get("CLAUDE_CONFIG_DIR") or str(_home(env) / ".claude")))
    if agent == CODEX:
        from memgit.sources.codex import default_root

        return default_root(env)
    from memgit.sources.gemini import default_root

    return default_root(env)


def skills_dir(agent: str, env: Mapping[str, str], claude_root: Path | None = None) -> Path:
    """Where the agent looks for a user's skills (`<dir>/<name>/SKILL.md`)."""
    if agent == CODEX:
        return _home(env) / ".agents" / "skills"
    return home(agent, env, claude_root) / "skills"


def found(env: Mapping[str, str], claude_root: Path | None = None) -> list[str]:
    """The agents whose home folder exists on this machine, in the table's order."""
    return [name for name in AGENTS if home(name, env, claude_root).is_dir()]
