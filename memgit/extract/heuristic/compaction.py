"""Compaction summaries: the agent's own recap when its context filled up, read by section.

Claude Code's summary has an "Analysis:" scratchpad, then a "Summary:" with numbered sections
("1. Primary Request and Intent:", "2. Key Technical Concepts:", "3. Files and Code Sections:",
"4. Errors and fixes:", "5. Problem Solving:", "6. All user messages:", "7. Pending Tasks:", …).
Only the "Summary:" half is read; each learner takes the sections that hold its kind of learning.
"""

from __future__ import annotations

import re

from memgit.extract.heuristic.text import plain

_HEADER = re.compile(
    r"^\s*(?:(?:\d+\.\s*)?\**(?P<t1>[A-Z][A-Za-z /&'-]{2,50}?)\**:\**|#{1,4}\s*(?P<t2>[A-Z][A-Za-z /&'-]{2,50}?):?)\s*$"
)
_BULLET = re.compile(r"^(?P<indent>\s*)(?:[-*•]|\d+\.|[a-z]\.)\s+(?P<text>\S.*)$")
_BOLD_LEAD = re.compile(r"^\*\*(?P<term>[^*]{2,80})\*\*\s*:?\s*(?P<rest>.*)$")
_STEP_LABEL = re.compile(r"^(?:initially|first|originally|then|finally)\s*:\s*", re.I)


def sections(summary: str) -> dict[str, list[str]]:
    """Lines of each section of a compaction summary, keyed by lower-cased title."""
    start = summary.find("\nSummary:")
    body = summary[start + 9 :] if start >= 0 else summary
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in body.splitlines():
        if match := _HEADER.match(line):
            current = found.setdefault((match.group("t1") or match.group("t2")).strip().lower(), [])
        elif current is not None:
            current.append(line)
    return found


def section(summary: str, *words: str) -> list[str]:
    """The lines of every section whose title holds one of `words`."""
    return [line for title, lines in sections(summary).items() if any(w in title for w in words) for line in lines]


def bullets(lines: list[str]) -> list[tuple[str, list[str]]]:
    """Top-level bullets of a section (markdown removed) with their child lines."""
    items: list[tuple[str, list[str]]] = []
    base: int | None = None
    for line in lines:
        match = _BULLET.match(line)
        if not match:
            continue
        indent = len(match.group("indent"))
        if base is None:
            base = indent
        if indent <= base:
            items.append((bold_lead(match.group("text").strip()), []))
        elif items:
            items[-1][1].append(bold_lead(match.group("text").strip()))
    return items


def bold_lead(text: str) -> str:
    """`**Term**: rest` → `Term: rest`, then plain text."""
    if bold := _BOLD_LEAD.match(text):
        term, rest = bold.group("term").strip().rstrip(":"), bold.group("rest").strip()
        text = f"{term}: {rest}" if rest else term
    return plain(text)


def intent(summary: str) -> str | None:
    """The first stated intent of a compaction summary ("Primary Request and Intent")."""
    lines = section(summary, "request", "intent")
    if not lines:
        return None
    if items := bullets(lines):
        return _STEP_LABEL.sub("", items[0][0])
    prose = " ".join(line.strip() for line in lines if line.strip())
    return plain(prose) or None
