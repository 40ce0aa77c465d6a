"""A person's edit of a file memgit regenerates (MEMORY.md, memory_summary.md, a memgit skill), kept as
theirs: read as intent, recorded beside the edit, replayed on every consolidation's output.

An edit is compared line by line with the text it replaced. Each change becomes a hunk (the lines
removed, the lines added, the lines around them) in a record file, `hand/<when>-<file>.md`, committed
with the edit; a line added to MEMORY.md or the summary also becomes a pinned note (`notes/`, as
`memgit remember` writes one), and a removed line that names a pinned note forgets that note. Every
consolidation then applies the records to what it made: where the text around a hunk is still there,
the hunk goes in exactly (so, when the notes did not change, the file is byte for byte what the person
wrote); elsewhere a removed line stays out wherever it appears (a learning removed from MEMORY.md or
the summary leaves both) and added lines go in after the line they followed, or at the end of their
section. `git revert` of the edit commit removes the record and the notes, and the next consolidation
writes the extractor's text again.

Pure: texts in, texts out; the callers read and commit the files.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from memgit.core.model import Consolidation
from memgit.core.notes import _dump_yaml, split_front_matter
from memgit.core.vocab import TYPES, slugify

HAND_DIR = "hand"
NOTES_DIR = "notes"
MEMORY = "MEMORY.md"
SUMMARY = "memory_summary.md"
PINNING = (MEMORY, SUMMARY)  # a line added to these is a learning the sessions are told: a pinned note
CONTEXT = 3  # lines before a hunk that must match for it to go in exactly
_SKILL = re.compile(r"^skills/([^/]+)/SKILL\.md$")
# Support a line carries, which changes as sessions come: MEMORY.md's " — 2 sessions: [..](..), .. (tier:
# emerging)", the summary's " (3 sessions, strong)".
_PROVENANCE = re.compile(r"\s+—\s+\d+ sessions?: .*$|\s+\(\d+ sessions?(?:, [a-z]+)?\)$")
_BULLET = re.compile(r"^(?:[-*+]|\d+[.)])\s+")
_TYPED = re.compile(rf"^\[(?P<type>{'|'.join(TYPES)})\]\s+")
_NOTE_LINK = re.compile(r"\bnotes/[^\s)\]*`]+\.md\b")


SKILL_MARK = "<!-- memgit:generated skill"  # a skill memgit wrote (a person's own it leaves alone)


def regenerated(path: str, text: str) -> bool:
    """True for a file consolidation rewrites: MEMORY.md, memory_summary.md, a memgit skill (`text` is
    the file as memgit left it)."""
    return path in PINNING or bool(_SKILL.match(path)) and SKILL_MARK in text


@dataclass(slots=True)
class Hunk:
    """One change: `removed` lines gave way to `added` ones, after `before` and ahead of `after`."""

    before: list[str]
    removed: list[str]
    added: list[str]
    after: list[str]
    section: str = ""  # the heading the change was under ("" at the top)


@dataclass(slots=True)
class Record:
    """A person's edit of one derived file: what a consolidation applies to it, in order."""

    file: str
    hunks: list[Hunk]
    pinned: list[str] = field(default_factory=list)  # notes/ the edit pinned
    forgot: list[str] = field(default_factory=list)  # notes/ the edit removed


@dataclass(slots=True)
class Kept:
    """What keeping one edit adds to its commit: the record, notes to write or delete, trailers."""

    record_path: str
    changes: dict[str, bytes | None]
    trailers: list[tuple[str, str]]
    added: int
    removed: int
    pinned: list[str]
    forgot: list[str]

    def describe(self, file: str) -> str:
        """One sentence for the person: what memgit made of their edit of `file`."""
        what = []
        if self.added:
            what.append(f"{self.added} line(s) added" + (f" (pinned as {', '.join(self.pinned)})" if self.pinned else ""))
        if self.removed:
            what.append(f"{self.removed} line(s) removed" + (f" (forgot {', '.join(self.forgot)})" if self.forgot else ""))
        return (f"{file}: kept as yours ({'; '.join(what) or 'changed'}), recorded in {self.record_path}; "
                "every consolidation keeps it, `git revert` of this commit gives the file back to memgit")


# ---- lines -------------------------------------------------------------------------------------


def key(line: str) -> str:
    """What a line says, for finding it again after a consolidation rewrote the file around it."""
    return _PROVENANCE.sub("", line.strip())


def statement(line: str) -> tuple[str | None, str]:
    """(type, text) a line states: bullet, `[type]` and provenance set aside; text "" for a line that
    states nothing (blank, a heading, a rule, a comment, a link to a note)."""
    text = key(line)
    if not text or text.startswith(("#", "<!--", "|", "```", "---")):
        return None, ""
    text = _BULLET.sub("", text)
    typed = _TYPED.match(text)
    kind = typed["type"] if typed else None
    text = text[typed.end():] if typed else text
    bare = _NOTE_LINK.sub("", text).strip(" []()*:`")
    return kind, " ".join(text.split()) if re.search(r"[A-Za-z]{2}", bare) else ""


# ---- an edit read as a record ------------------------------------------------------------------


def hunks(old: str, new: str) -> list[Hunk]:
    """The changes from old to new, each with the lines around it."""
    a, b = old.split("\n"), new.split("\n")
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        heading = next((line for line in reversed(a[:i1]) if line.startswith("#")), "")
        out.append(Hunk(a[max(0, i1 - CONTEXT):i1], a[i1:i2], b[j1:j2], a[i2:i2 + 1], heading))
    return out


def keep(file: str, old: str, new: str, *, stamp: str, day: str,
         read: Callable[[str], bytes | None], pinned_notes: Iterable[str]) -> Kept | None:
    """What to commit beside a person's new text of the derived `file` so that it is kept; None when
    nothing changed.

    Args:
        stamp: the record's name stem (a sortable time, e.g. 2026-11-27-093015).
        day: the date a pinned note is added on (YYYY-MM-DD).
        read: a file of the branch at the edited head (None when absent).
        pinned_notes: the paths under notes/ at that head.
    """
    found = hunks(old, new)
    if not found:
        return None
    changes: dict[str, bytes | None] = {}
    pinned, forgot = [], []
    notes = {p: _note_text(read(p)) for p in pinned_notes if p.endswith(".md")}
    said = {text: p for p, text in notes.items() if text}
    removed_lines = [line for h in found for line in h.removed if statement(line)[1] or _NOTE_LINK.search(line)]
    added_lines = [line for h in found for line in h.added if statement(line)[1]]
    kept_texts = {statement(line)[1] for line in added_lines}
    removed_texts = {statement(line)[1] for line in removed_lines}
    for line in removed_lines:
        text = statement(line)[1]
        named = set(_NOTE_LINK.findall(line)) | ({said[text]} if text in said else set())
        for path in sorted(named):
            if path in notes and path not in forgot and notes[path] not in kept_texts:
                forgot.append(path)
                changes[path] = None
    if file in PINNING:
        for line in added_lines:
            kind, text = statement(line)
            if text in said or text in removed_texts:
                continue  # already a pinned note; or a line that only moved or lost its provenance
            path = _free(f"{NOTES_DIR}/{day}-{slugify(text, 50, max_words=6)}", lambda p: p in changes or read(p) is not None)
            meta = {"added": day, **({"type": kind} if kind else {}), "from": file}
            changes[path] = ("---\n" + _dump_yaml(meta) + "---\n" + text + "\n").encode()
            said[text] = path
            pinned.append(path)
    record_path = _free(f"{HAND_DIR}/{stamp}-{slugify(file, 40)}", lambda p: p in changes or read(p) is not None)
    changes[record_path] = render(Record(file, found, pinned, forgot)).encode()
    trailers = [("Memgit-Edit", file), ("Memgit-Hand", record_path)]
    trailers += [("Memgit-Pin", p) for p in pinned] + [("Memgit-Forget", p) for p in forgot]
    trailers += [("Memgit-Drop", key(line)) for line in removed_lines]
    return Kept(record_path, changes, trailers, len(added_lines), len(removed_lines), pinned, forgot)


def _note_text(raw: bytes | None) -> str:
    if raw is None:
        return ""
    text = raw.decode("utf-8", "replace")
    try:
        text = split_front_matter(text)[1]
    except ValueError:
        pass
    return " ".join(text.split())


def _free(stem: str, taken: Callable[[str], bool]) -> str:
    path, n = f"{stem}.md", 1
    while taken(path):
        n += 1
        path = f"{stem}-{n}.md"
    return path


def origin(note_text: str) -> str:
    """The derived file a pinned note was added to by hand ("" for any other note)."""
    try:
        meta = split_front_matter(note_text)[0]
    except ValueError:
        return ""
    value = meta.get("from", "")
    return value if isinstance(value, str) else ""


# ---- the record file ---------------------------------------------------------------------------

_ABOUT = ("A person's edit of {file}, kept by memgit: every consolidation applies the changes above to "
          "what it writes. `git revert` of the commit that added this file undoes the edit.\n")


def render(record: Record) -> str:
    meta = {"file": record.file, "pinned": record.pinned, "forgot": record.forgot,
            "hunks": [{"section": h.section, "before": h.before, "removed": h.removed, "added": h.added,
                       "after": h.after} for h in record.hunks]}
    return "---\n" + _dump_yaml(meta) + "---\n" + _ABOUT.format(file=record.file)


def parse(text: str) -> Record | None:
    """A record file read back; None when it is not one (a person's own file under hand/)."""
    try:
        meta = split_front_matter(text)[0]
    except ValueError:
        return None
    file, raw = meta.get("file"), meta.get("hunks")
    if not isinstance(file, str) or not isinstance(raw, list):
        return None

    def lines(h: dict, name: str) -> list[str]:
        value = h.get(name) or []
        return [str(x) for x in value] if isinstance(value, list) else []

    found = [Hunk(lines(h, "before"), lines(h, "removed"), lines(h, "added"), lines(h, "after"),
                  str(h.get("section") or "")) for h in raw if isinstance(h, dict)]
    return Record(file, found)


# ---- replaying records on a consolidation --------------------------------------------------------


def apply(text: str, records: Sequence[Record], forgotten: Iterable[str] = ()) -> str:
    """`text` with the records' hunks applied in order, and without the lines stating `forgotten` texts."""
    lines = text.split("\n")
    for record in records:
        pos = 0
        for h in record.hunks:
            lines, pos = _apply(lines, h, pos)
    gone = set(forgotten)
    if gone:
        lines = [line for line in lines if statement(line)[1] not in gone]
    return "\n".join(lines)


def forgotten(records: Sequence[Record]) -> set[str]:
    """The texts a person removed from MEMORY.md or the summary (and did not put back)."""
    removed, added = set(), set()
    for record in records:
        if record.file in PINNING:
            for h in record.hunks:
                removed |= {statement(line)[1] for line in h.removed}
                added |= {statement(line)[1] for line in h.added}
    return removed - added - {""}


def applied(c: Consolidation, records: Sequence[Record]) -> Consolidation:
    """A consolidation with a scope's hand records applied to its MEMORY.md, summary and skills."""
    if not records:
        return c
    gone = forgotten(records)

    def of(file: str) -> list[Record]:
        return [r for r in records if r.file == file]

    skills = {name: apply(text, of(f"skills/{name}/SKILL.md")) for name, text in c.skills.items()}
    return replace(c, memory_md=apply(c.memory_md, of(MEMORY), gone), summary_md=apply(c.summary_md, of(SUMMARY), gone),
                   skills={name: text for name, text in skills.items() if text.strip()})


def _apply(lines: list[str], h: Hunk, pos: int) -> tuple[list[str], int]:
    at = _exact(lines, h, pos)
    if at is not None:
        return lines[:at] + h.added + lines[at + len(h.removed):], at + len(h.added)
    gone = {key(line) for line in h.removed} - {""}
    lines = [line for line in lines if key(line) not in gone]
    present = {key(line) for line in lines}
    added = [line for line in h.added if not key(line) or key(line) not in present]
    if not any(key(line) for line in added):
        return lines, min(pos, len(lines))
    at = _anchor(lines, h)
    return lines[:at] + added + lines[at:], at + len(added)


def _exact(lines: list[str], h: Hunk, pos: int) -> int | None:
    """Where the hunk's own surroundings are, unchanged, at or after `pos` (near the top of the file: as
    near as it was)."""
    n, r = len(h.before), len(h.removed)
    last = len(lines) - r - len(h.after) if n == CONTEXT else n
    for at in range(max(pos, n), last + 1):
        if lines[at - n:at] == h.before and lines[at:at + r] == h.removed and lines[at + r:at + r + len(h.after)] == h.after:
            return at
    return None


def _anchor(lines: list[str], h: Hunk) -> int:
    """Where added lines go when their surroundings changed: after the line they followed, else at the
    end of their section, else at the end."""
    near = next((key(line) for line in reversed(h.before) if key(line)), "")
    for i, line in enumerate(lines):
        if near and key(line) == near:
            return i + 1
    if h.section and h.section in lines:
        i = lines.index(h.section) + 1
        while i < len(lines) and not lines[i].startswith("#"):
            i += 1
        while i > 0 and not lines[i - 1].strip():
            i -= 1
        return i
    end = len(lines)
    while end > 0 and not lines[end - 1].strip():
        end -= 1
    return end
