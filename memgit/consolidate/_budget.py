"""Fill a markdown document by priority within a token budget and a character cap.

Lines are offered in priority order, each tagged with the section it belongs to and its place
there; a line is kept when the whole document, rendered in reading order, still fits. Counting
the real rendering (not a sum of estimates) makes the bound exact; a document is a few kilobytes
and at most ~150 lines are offered, so re-counting costs milliseconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from memgit.core import tokens

MAX_CHARS = 8_999  # "always under 9,000 characters", whatever the token budget


@dataclass(frozen=True, slots=True)
class Line:
    section: str  # "" for the head (title and intro), else the `## ` heading
    text: str
    place: tuple = ()  # order within the section


@dataclass(slots=True)
class Document:
    sections: Sequence[str]  # reading order of the `## ` sections
    budget_tokens: int
    max_chars: int = MAX_CHARS
    kept: list[Line] = field(default_factory=list)

    def render(self, lines: Sequence[Line] | None = None) -> str:
        lines = self.kept if lines is None else lines
        by_section: dict[str, list[Line]] = {}
        for line in lines:
            by_section.setdefault(line.section, []).append(line)
        parts = ["\n\n".join(l.text for l in sorted(by_section.get("", []), key=lambda l: l.place))]
        for section in self.sections:
            body = sorted(by_section.get(section, []), key=lambda l: l.place)
            if body:
                parts.append(f"## {section}\n\n" + "\n".join(l.text for l in body))
        return "\n\n".join(p for p in parts if p) + "\n"

    def fits(self, text: str) -> bool:
        return len(text) <= self.max_chars and tokens.count_often(text) <= self.budget_tokens

    def offer(self, line: Line) -> bool:
        """Keep `line` if the document still fits with it."""
        if self.fits(self.render([*self.kept, line])):
            self.kept.append(line)
            return True
        return False

    def text(self) -> str:
        """The rendering, clamped to the budget even when the first line alone is too long."""
        text = self.render()
        if self.fits(text):
            return text
        return clamp(text, self.budget_tokens, self.max_chars)


def clamp(text: str, budget_tokens: int, max_chars: int = MAX_CHARS) -> str:
    """Cut `text` at a line (else a character) so it fits the budget and the cap."""
    def ok(t: str) -> bool:
        return len(t) <= max_chars and tokens.count_often(t) <= budget_tokens

    lines = text.rstrip("\n").split("\n")
    while len(lines) > 1 and not ok("\n".join(lines) + "\n"):
        lines.pop()
    text = "\n".join(lines) + "\n"
    lo, hi = 0, len(text)
    if ok(text):
        return text
    while lo < hi:  # the longest prefix that fits
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if ok(text[:mid]) else (lo, mid - 1)
    return text[:lo]
