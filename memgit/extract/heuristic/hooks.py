"""Hooks: what the person's agent setup runs on its own after the agent edits a file (a formatter, a
linter). The agent meets it at every edit ("files I edit change after I write them") and cannot see
it in the project's code; a newcomer is told it once.

The source reports the hooks a session ran in neutral terms (memgit.core.model.Transcript.hooks);
one run is enough, since a hook runs because the setup says so. Hooks around other tools (a
subagent's start, the session's end) act on the harness, not on the project's files: not learnings.
"""

from __future__ import annotations

from memgit.extract.heuristic.candidate import Candidate
from memgit.extract.heuristic.session import Session

SCORE = 4.0  # a fact of the setup, true at every edit


def learn(s: Session) -> list[Candidate]:
    """A fact per command run after the agent's file edits."""
    commands = dict.fromkeys(command for when, kind, command in s.hooks if when == "after" and kind == "edit")
    return [Candidate("fact", f"A hook runs `{command}` after every file edit the agent makes here.", SCORE, "hook")
            for command in commands]
