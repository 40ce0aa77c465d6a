"""Text tables: identifiers (branches, sessions, folders) are printed whole, only free text is shortened."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Collection, Sequence

MIN_FREE = 16  # the free text keeps at least this much, even when the identifiers fill the line


def width() -> int | None:
    """The line width to fit: $COLUMNS, else the terminal's; None when the output goes to a pipe
    (a `grep` or a file wants every word)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    return shutil.get_terminal_size().columns if sys.stdout.isatty() else None


def clip(text: str, room: int) -> str:
    return text if len(text) <= room else text[:max(room - 1, 0)] + "…"


def render(rows: Sequence[Sequence[str]], *, right: Collection[int] = (), columns: int | None = None) -> str:
    """`rows` (a header first, if any) as aligned columns, one space apart.

    Every column but the last is as wide as its widest cell: an identifier is never cut. The last
    column is free text (a subject, a path, a reason): it alone is shortened, with …, to fit `columns`.
    """
    if not rows:
        return ""
    n = max(len(r) for r in rows)
    cells = [[str(c) for c in r] + [""] * (n - len(r)) for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(n - 1)]
    lead = sum(widths) + len(widths)
    room = None if columns is None else max(columns - lead, MIN_FREE)
    lines = []
    for r in cells:
        fixed = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))]
        free = r[-1] if room is None else clip(r[-1], room)
        lines.append(" ".join([*fixed, free]).rstrip())
    return "\n".join(lines)
