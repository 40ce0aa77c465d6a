"""The files a session edited, as its note's paragraph says them: written by the extractor, read back
by the consolidator, which tells the work that recurs ("edited 1 file (ReleaseNotes.md)" in eight
sessions) and what a person's words were about.

One phrase, one place: `phrase` writes it, `edited_files` and `shown_files` read it. A note whose paragraph lists only
some of its files ("… and 3 more") or none (an LLM's note) reads as no files: it is broad work, or
unknown, and neither tells a recurring task.
"""

from __future__ import annotations

import re

SHOWN = 4  # names a paragraph lists before "and N more"

_EDITED = re.compile(r"\bedited (?P<n>\d+) files? \((?P<names>[^()]*?)(?: and \d+ more)?\)")


def phrase(names: list[str]) -> str:
    """"edited 2 files (a.go, b.go)" for the file names, in the order they were first edited."""
    shown = ", ".join(names[:SHOWN]) + (f" and {len(names) - SHOWN} more" if len(names) > SHOWN else "")
    return f"edited {len(names)} file{'s' if len(names) > 1 else ''} ({shown})"


def edited_files(summary: str) -> tuple[str, ...]:
    """The file names a note's paragraph says the session edited, when it lists them all; else ()."""
    found = _EDITED.search(summary)
    if found is None or int(found.group("n")) > SHOWN:
        return ()
    listed = found.group("names").split(", ")
    return tuple(listed) if len(listed) == int(found.group("n")) and all(listed) else ()


def shown_files(summary: str) -> tuple[str, ...]:
    """The file names a note's paragraph lists as edited, all or the first SHOWN of more; () for none."""
    found = _EDITED.search(summary)
    return tuple(name for name in found.group("names").split(", ") if name) if found else ()
