"""What a source marked as the harness's, and whether any of it reached a note (shared by the tests)."""

from __future__ import annotations

import re

from memgit.core.model import HARNESS, Note, Transcript

MIN_WORDS = 5  # a shorter piece ("Exit code 1", "See ya!") may well be said by anyone
_SENTENCE = re.compile(r"(?<=[.!?:])\s+|\n+")
_SPACE = re.compile(r"\s+")


def harness_units(transcript: Transcript) -> list[str]:
    """Every piece of text the source marked as the harness's: its turns and its answers in a tool's place."""
    units = [turn.text for turn in transcript.turns if turn.role == "user" and turn.origin == HARNESS]
    units += [call.harness for turn in transcript.turns for call in turn.tool_calls if call.harness]
    return units


def pieces(text: str) -> set[str]:
    """The sentences of a text long enough to be recognised elsewhere, normalised."""
    found = set()
    for piece in _SENTENCE.split(text):
        piece = _norm(piece.strip(" -*#>`\"'()[]"))
        if len(piece.split()) >= MIN_WORDS:
            found.add(piece)
    return found


def leaks(note: Note | None, transcript: Transcript, *, also: tuple[str, ...] = ()) -> list[str]:
    """The harness sentences (and `also`: phrases the harness writes) found in a note's title or learnings."""
    if note is None:
        return []
    told = [_norm(note.title)] + [_norm(learning.text) for learning in note.learnings]
    wanted = set().union(*(pieces(u) for u in harness_units(transcript))) | {_norm(a) for a in also}
    return sorted(w for w in wanted if any(w in t for t in told))


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text.replace("\u2019", "'")).strip().lower()
