"""Read MEMORY.md and the summary back: `## ` sections, their bullets and their links (markdown-it-py)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection
from dataclasses import dataclass, field

from memgit.core.vocab import TYPE_PATTERN

_LEARNING = re.compile(rf"^\[(?P<type>{TYPE_PATTERN})\]\s")
_LINK = re.compile(r"\[([^\]\n]*)\]\(([^)\s]+)\)")


@dataclass(slots=True)
class Bullet:
    text: str  # the item's inline markdown, as written
    links: list[str] = field(default_factory=list)

    @property
    def type(self) -> str | None:
        """The learning type of a `- [type] …` bullet, else None."""
        match = _LEARNING.match(self.text)
        return match["type"] if match else None


@dataclass(slots=True)
class Section:
    heading: str
    bullets: list[Bullet] = field(default_factory=list)


def _parser():
    from markdown_it import MarkdownIt  # lazy: ~30 ms, only consolidation and tests need it

    return MarkdownIt("commonmark")


def sections(text: str) -> list[Section]:
    """The `## ` sections of a document and the top-level bullets of each (text before the first: "")."""
    out = [Section("")]
    tokens = _parser().parse(text)
    depth = 0
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.tag == "h2":
            out.append(Section(tokens[i + 1].content.strip()))
        elif tok.type in ("bullet_list_open", "ordered_list_open"):
            depth += 1
        elif tok.type in ("bullet_list_close", "ordered_list_close"):
            depth -= 1
        elif tok.type == "inline" and depth == 1 and tokens[i - 1].type == "paragraph_open" \
                and tokens[i - 2].type == "list_item_open":
            links = [c.attrs.get("href", "") for c in tok.children or () if c.type == "link_open"]
            out[-1].bullets.append(Bullet(tok.content, [str(h) for h in links]))
    return out


def links(text: str) -> list[str]:
    """Every link target in a document, in order."""
    found = []
    for tok in _parser().parse(text):
        for child in tok.children or ():
            if child.type == "link_open":
                found.append(str(child.attrs.get("href", "")))
    return found


_LEARNING_LINE = re.compile(rf"^[-*] \[(?:{TYPE_PATTERN})\] ", re.M)


def learnings(text: str) -> int:
    """How many `- [type] …` learning bullets a MEMORY.md holds (top-level list items; counted by
    line, as parsing a 10k-note MEMORY.md for one number would cost a tenth of a second)."""
    return len(_LEARNING_LINE.findall(text))


def is_relative(target: str) -> bool:
    return not re.match(r"^[a-z][a-z0-9+.-]*:|^/|^#", target, re.I)


def resolve(target: str, base: str = "") -> str:
    """The repository path a relative link from a file in directory `base` points at."""
    path = target.split("#", 1)[0].split("?", 1)[0]
    return posixpath.normpath(posixpath.join(base, path)) if path else ""


def broken_links(text: str, existing: Collection[str], base: str = "") -> list[str]:
    """Relative link targets that name no existing file."""
    return [t for t in links(text) if is_relative(t) and resolve(t, base) not in existing]


def unlink_broken(text: str, existing: Collection[str], base: str = "") -> str:
    """Replace `[label](target)` by `label` where the relative target names no existing file."""
    def fix(m: re.Match) -> str:
        target = m.group(2)
        if is_relative(target) and resolve(target, base) not in existing:
            return m.group(1)
        return m.group(0)

    return _LINK.sub(fix, text)
