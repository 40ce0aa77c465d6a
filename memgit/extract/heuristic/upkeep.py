"""Upkeep: what the person has the agent update after the work — the README, the release notes, the
schema, the tests — which the agent should do unasked next time.

A follow-up request ("Also update the ReleaseNotes with the recent changes", "can we add some tests?")
typed after the agent changed files, and answered by an edit of the file it names, says what a change
in this project is not done without. One session shows it once; the same request in another session
makes it the project's convention (consolidation counts the sessions, and only then does the briefing
tell it: one request is a one-off). The learning names the file the agent edited, so the same upkeep
in two sessions is one learning and two different files are two; tests are named as such, since each
change has its own test file.
"""

from __future__ import annotations

import re

from memgit.extract.heuristic.candidate import Candidate
from memgit.extract.heuristic.session import Exchange, Session
from memgit.extract.heuristic.text import sentences
from memgit.extract.tools import edited_paths, is_edit

# A request to bring something up to date, and what it names (within the sentence).
_ASK = re.compile(r"\b(?:update|add|adapt|adjust|extend|document|fill in|amend|reflect)\b[^.?!;]{0,80}", re.I)
_NOT_ASKED = re.compile(r"\b(?:don'?t|do not|no need|never|not|without|skip|instead of)\b", re.I)
_WONDERING = re.compile(r"^(?:do|does|did|is|are|was|were|why|what|how|where|when|which|who)\b", re.I)
# Each kind of upkeep: (how a request names it, how the file the agent then edited is recognised).
_KINDS = {
    "readme": (re.compile(r"\breadme\b", re.I), re.compile(r"^readme\b", re.I)),
    "release": (re.compile(r"\brelease ?notes\b|\bchange ?log\b", re.I),
                re.compile(r"release|change ?log|^changes\b|^history\b|^news\b", re.I)),
    "docs": (re.compile(r"\bdocs?\b|\bdocument(?:ation|ing)?\b", re.I), re.compile(r"\.(?:md|mdx|rst|adoc)$", re.I)),
    "schema": (re.compile(r"\bschema\b", re.I), re.compile(r"schema", re.I)),
    "tests": (re.compile(r"\btests?\b", re.I), re.compile(r"(?:^test_|_test\.|\.test\.|\.spec\.|^tests?\.)", re.I)),
}
SCORE = 3.0
_FOLLOW_UP = ("prompt", "queued")


def learn(s: Session) -> list[Candidate]:
    """One convention per file the person had updated after the work (tests: one for all)."""
    found: dict[str, Candidate] = {}
    before: set[str] = set()  # the files edited before the request at hand
    read = 0
    for x in s.requests[1:]:  # the first request (or the approved plan) is the task itself
        before.update(path for c in s.calls[read: x.first_call] if is_edit(c) for path in edited_paths(c))
        read = max(read, x.first_call)
        if x.kind not in _FOLLOW_UP or not _ASK.search(x.said):
            continue
        if not before:
            continue  # nothing was changed yet: a request of its own, not upkeep
        # a file the session had edited already is its own work ("update the architecture document")
        edited = [path.rsplit("/", 1)[-1] for c in x.calls if is_edit(c) for path in edited_paths(c)
                  if path not in before]
        for kind in _named(x):
            for name in _answered(kind, edited):
                text = ("The user asks for tests along with a change." if kind == "tests"
                        else f"The user asks for `{name}` to be updated along with a change.")
                found.setdefault(text, Candidate("convention", text, SCORE, "upkeep"))
    return list(found.values())


def _named(x: Exchange) -> list[str]:
    """The kinds of upkeep the person's follow-up asks for."""
    kinds: list[str] = []
    for line in x.said.splitlines():
        for sentence in sentences(line):
            if _WONDERING.match(sentence):
                continue
            for ask in _ASK.finditer(sentence):
                if _NOT_ASKED.search(sentence[: ask.start()]):
                    continue
                kinds += [kind for kind, (said, _) in _KINDS.items() if said.search(ask.group()) and kind not in kinds]
    return kinds


def _answered(kind: str, edited: list[str]) -> list[str]:
    """The files of this kind the agent edited in answer (the docs: those no other kind claims)."""
    hits = [name for name in dict.fromkeys(edited) if _KINDS[kind][1].search(name)]
    if kind == "docs":  # a README or the release notes are kinds of their own
        hits = [name for name in hits if not any(file.search(name) for other, (_, file) in _KINDS.items()
                                                 if other != "docs")]
    return hits[:1] if kind == "tests" else hits
