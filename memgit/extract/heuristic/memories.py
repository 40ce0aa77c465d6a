"""Memories: what the agent wrote into its own memory during the session (Claude Code's auto memory,
Gemini CLI's `save_memory` and memory files), for the sessions to come.

The agent writes a memory precisely so that it holds later, often at the person's request ("remember
that …"), so each is standing by where it stands, as a rule written into CLAUDE.md is. The sources give
such a write the kind "memory" and put what it remembered under `fact` (memgit.sources.memory_writes);
its type, when the memory says one, tells what it is about: how the person wants things done
("feedback") or who they are ("user") is a preference; "reference" (where to look something up) a fact;
the rest (a project's memory, a bare fact) a convention of the project.
"""

from __future__ import annotations

from memgit.core.scan import clip
from memgit.extract.heuristic.candidate import Candidate
from memgit.extract.heuristic.session import Session
from memgit.extract.heuristic.standing import REMEMBERED
from memgit.extract.heuristic.text import plain, units

SCORE = 4.25  # as a rule written into the project's instructions
MAX_CHARS = 300
_TYPES = {"feedback": "preference", "user": "preference", "reference": "fact"}


def learn(s: Session) -> list[Candidate]:
    """One learning per memory the session's agent wrote, as its first sentences say it."""
    out = []
    for call in [*s.calls, *s.side_calls]:
        fact = call.input.get("fact")
        if call.kind != "memory" or not call.ran or call.is_error or not isinstance(fact, str):
            continue
        if said := _said(fact):
            kind = _TYPES.get(str(call.input.get("memory_type") or ""), "convention")
            out.append(Candidate(kind, f"{REMEMBERED} {said}", SCORE, "memory"))
    return out


def _said(fact: str) -> str:
    """The memory's first sentences that fit, one line ("**Why:** …" and what follows are its detail)."""
    taken: list[str] = []
    for unit in units(fact):
        text = plain(unit.text)
        if taken and (text.lower().startswith(("why:", "how to apply:")) or len(" ".join(taken + [text])) > MAX_CHARS):
            break
        taken.append(text)
    return clip(" ".join(taken), MAX_CHARS) if taken else ""
