"""Numbered files: a project that records a kind of change as a numbered sequence of files.

Schema migrations are the common case (`migrations/sqlite3/11_optimize-indexes.up.sql` with its
`.down.sql`, Django's `0003_add_index.py`, Rails' `20240101120000_create_users.rb`): a newcomer must
know where the next one goes, how it is named and what changes with it (`migration.go`, which holds
the schema version). No one states this; the work shows it. A session that writes numbered files
proposes the convention in a fixed wording, so that the sessions following the same practice meet
in one learning: seen in two sessions, it reaches the briefing (one session alone does not).
"""

from __future__ import annotations

import re

from memgit.extract.heuristic.candidate import Candidate
from memgit.extract.heuristic.filters import scrub
from memgit.extract.heuristic.session import Session

SCORE = 2.4
_NUMBERED = re.compile(r"^(?P<n>\d{2,14})(?P<sep>[_-])(?P<name>[^.]+)(?P<ext>(?:\.(?:up|down))?\.[A-Za-z0-9]+)$")
MIN_ROOT = 5  # characters a companion file's name shares with the sequence's folder (migration.go, migrations/)


def learn(s: Session) -> list[Candidate]:
    """At most one convention: the folder of the numbered files the session wrote, their form, and the
    files named after that folder that changed with them."""
    found: dict[str, list[re.Match]] = {}
    for call in s.edits:
        folder, _, name = (call.file_path or "").replace("\\", "/").rpartition("/")
        if (numbered := _NUMBERED.match(name)) is not None:
            found.setdefault(folder, []).append(numbered)
    for folder, files in sorted(found.items(), key=lambda kv: -len(kv[1])):
        where = scrub(folder, s.cwd).strip("/")
        if not where or where.startswith(("~", ".", "/")):
            continue  # outside the project: not its convention
        return [Candidate("convention", _statement(where, files, _companions(s, folder)), SCORE, "sequence")]
    return []


def _statement(where: str, files: list[re.Match], companions: list[str]) -> str:
    first = files[0]
    number = "TIMESTAMP" if len(first.group("n")) >= 8 else "N" * len(first.group("n"))
    forms = sorted({f.group("ext") for f in files}, key=lambda ext: (".down." in ext, ext))
    named = " and ".join(f"`{number}{first.group('sep')}name{ext}`" for ext in forms)
    text = f"New files in `{where}/` are numbered in sequence: {named}"
    if companions:
        text += f"; {' and '.join(f'`{c}`' for c in companions)} changes with them"
    return text + "."


def _companions(s: Session, folder: str) -> list[str]:
    """Files the session changed that are named after the sequence's folder (`migration.go` for
    `migrations/`): where the sequence is registered or its version kept."""
    parts = [p.lower() for p in folder.split("/") if len(p) >= MIN_ROOT]
    out = []
    for call in s.edits:
        name = (call.file_path or "").replace("\\", "/").rpartition("/")[2]
        stem = name.split(".", 1)[0].lower()
        if len(stem) >= MIN_ROOT and not _NUMBERED.match(name) and any(p.startswith(stem) or stem.startswith(p) for p in parts):
            out.append(name)
    return sorted(set(out))
