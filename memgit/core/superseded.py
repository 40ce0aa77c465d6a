"""What consolidation marked superseded, read back from MEMORY.md, and which learnings of which notes
it covers: a learning a later session contradicted must never come back from search or the prompt
hook, neither from MEMORY.md nor from the session note that still holds it.

Consolidation lists such learnings under `## Superseded` in each branch's MEMORY.md, one bullet each
(memgit.consolidate.heuristic.memory_md.superseded_bullet):

    - [decision] ~~Build with npm~~ — said in [2026-02-09 6f1c2e4a](sessions/…md); superseded by "…" (…)

A note's learning is covered when its words are the bullet's (case, spacing and punctuation aside),
or when the bullet links to the note and the two share most of their content words (consolidation
merges near-identical wordings into one bullet, and links the notes that said it). Pure: the search
index (memgit.store.search_index) reads MEMORY.md and asks.
"""

from __future__ import annotations

import re
from collections import namedtuple

from memgit.core.vocab import TEAM_DIR

SECTION = "superseded"  # the `## ` heading, any case
NEAR = 0.6  # content-word Jaccard of a linked note's learning and the bullet's text

Item = namedtuple("Item", "type text key words paths")
Item.__doc__ = "One superseded learning: its type, text, key (normalised words), content words, linked notes."

_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")
_BULLET = re.compile(r"^\s*[-*]\s+\[(?P<type>[a-z]+)\]\s+~~(?P<text>.+?)~~(?P<rest>.*)$")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_FILLER = frozenset("""a an and are as at be but by for from has have in into is it its of on or so that the their
then there these this to was were will with not no do does did can""".split())


def key(text: str) -> str:
    """The words of `text`, lower case, one space apart: two wordings that differ only in case,
    spacing or punctuation have the same key."""
    return " ".join(_WORD.findall(text.lower()))


def content_words(text: str) -> frozenset[str]:
    return frozenset(w for w in _WORD.findall(text.lower()) if w not in _FILLER and len(w) > 1)


def items(memory_md: str) -> list[Item]:
    """The bullets of MEMORY.md's `## Superseded` section; [] when it has none."""
    found, inside = [], False
    for line in memory_md.splitlines():
        heading = _HEADING.match(line)
        if heading:
            inside = heading.group(1).strip().lower() == SECTION
            continue
        bullet = _BULLET.match(line) if inside else None
        if bullet is None:
            continue
        rest = bullet.group("rest")
        said = rest.split("superseded by", 1)[0]  # the links before it are the notes that said it
        paths = frozenset(_note_path(p) for p in _LINK.findall(said))
        text = bullet.group("text").strip()
        found.append(Item(bullet.group("type"), text, key(text), content_words(text), paths))
    return found


def _note_path(link: str) -> str:
    """A link's path inside its branch (a global MEMORY.md may prefix it with the project's folder); a
    teammate's note keeps its `team/<person>/` (a shared project's MEMORY.md links them so)."""
    at = link.find("sessions/")
    if at < 0:
        return link
    team = link.rfind(TEAM_DIR + "/", 0, at)
    if team >= 0 and (team == 0 or link[team - 1] == "/") and link.count("/", team, at) == 2:
        at = team
    return link[at:]


class Lookup:
    """The superseded learnings of one branch, asked about one note's learnings at a time."""

    def __init__(self, found: list[Item]):
        self.keys = frozenset(i.key for i in found)
        self.by_path: dict[str, list[Item]] = {}
        for item in found:
            for path in item.paths:
                self.by_path.setdefault(path, []).append(item)

    def __bool__(self) -> bool:
        return bool(self.keys)

    def covers(self, path: str, kind: str, text: str) -> bool:
        """Tell whether the learning `text` (of type `kind`) of the note at `path` is superseded."""
        if key(text) in self.keys:
            return True
        linked = self.by_path.get(path)
        if not linked:
            return False
        words = content_words(text)
        return any(i.type == kind and _jaccard(words, i.words) >= NEAR for i in linked)

    def paths(self) -> frozenset[str]:
        """The notes the bullets link to (those whose learnings may be covered by nearness)."""
        return frozenset(self.by_path)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


NONE = Lookup([])
