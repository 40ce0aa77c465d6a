"""Files cut into search units, what memgit.store.search_index indexes: a session note's summary and
each of its learnings, MEMORY.md's lines, a summary's or a skill's sections, a pinned note; and the
units grouped by subject, which the prompt hook weighs as a whole (memgit.core.recall).

Pure: text in, memgit.core.search.Doc out. Only the index's writer and the team's units
(memgit.core.teammates) read files this way; search and the prompt hook read the index alone.
"""

from __future__ import annotations

from memgit.core import lazyre, paragraph
from memgit.core.search import MEMORY_FILE, SUMMARY_FILE, SUPERSEDED_SECTION, Doc, first_line, identifier_parts
from memgit.core.vocab import TYPE_PATTERN, TYPE_RANK, UNREVIEWED

_LEARNING = lazyre.compile(rf"^\s*[-*]\s+\[({TYPE_PATTERN})\]\s+(.+?)\s*$")
_SUPPORT = lazyre.compile(r"\s+—\s+(\d+)\s+sessions?\b.*$")
_LINK_DATE = lazyre.compile(r"\[(\d{4}-\d{2}-\d{2})[^\]]*\]\(")
_DATE = lazyre.compile(r"(\d{4}-\d{2}-\d{2})")
_HEADING = lazyre.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


def indexed(path: str) -> bool:
    """Tell whether a file of a branch holds anything search shows (the others are never read)."""
    if path in (MEMORY_FILE, SUMMARY_FILE):
        return True
    if not path.endswith(".md"):
        return path.startswith("imported/") and path.endswith((".txt", ".markdown"))
    return path.startswith(("sessions/", "notes/", "imported/")) or \
        path.startswith("skills/") and path.endswith("/SKILL.md")


def documents(branch: str, path: str, text: str, superseded=None) -> list[Doc]:
    """Cut one file of a branch into search units; [] for a file search does not show.

    `superseded` (a memgit.core.superseded.Lookup of the branch) leaves out of a session note the
    learnings a later session contradicted, and their words out of its summary.
    """
    if not indexed(path):
        return []
    meta, body = _front_matter(text)
    if path == MEMORY_FILE:
        return _memory(branch, path, body)
    if path == SUMMARY_FILE:
        return _sections(branch, path, body, kind="summary", meta={})
    if path.startswith("sessions/"):
        return _session_note(branch, path, meta, body, superseded)
    if path.startswith("notes/"):
        return _pinned(branch, path, meta, body)
    if path.startswith("skills/"):
        return _sections(branch, path, body, kind="skill", meta=meta)
    return _sections(branch, path, body, kind="imported", meta=meta)


def _front_matter(text: str) -> tuple[dict[str, str], str]:
    """The top-level `key: value` pairs of a front matter, unquoted, and the body after it.

    A line-by-line read rather than YAML: an index of 10,000 notes is built in about a second, and
    search needs only a few plain values.
    """
    if not text.startswith("---"):
        return {}, text
    end = text.find("\n---", 3)
    if end < 0:
        return {}, text
    meta = {}
    for line in text[3:end].splitlines():
        key, sep, value = line.partition(":")
        if sep and key and not key[0].isspace() and key.strip().isidentifier():
            meta[key.strip()] = value.strip().strip("'\"")
    after = text.find("\n", end + 4)
    return meta, text[after + 1:] if after >= 0 else ""


def _title_and_rest(body: str) -> tuple[str, list[str]]:
    lines = body.splitlines()
    for i, line in enumerate(lines):
        if line.strip():
            m = _HEADING.match(line)
            return (m.group(2), lines[i + 1:]) if m else ("", lines[i:])
    return "", []


def _session_note(branch: str, path: str, meta: dict, body: str, superseded=None) -> list[Doc]:
    session = meta.get("session", "")
    day = _day(meta.get("started", "")) or _day(path.rsplit("/", 1)[-1])
    title, lines = _title_and_rest(body)
    summary, learnings, in_learnings, dropped = [], [], False, []
    for line in lines:
        m = _HEADING.match(line) if line.startswith("#") else None
        if m:
            in_learnings = m.group(2).strip().lower() == "learnings"
            continue
        found = _LEARNING.match(line) if in_learnings and line.lstrip()[:1] in "-*" else None
        if found and superseded and superseded.covers(path, found.group(1), found.group(2)):
            dropped.append(found.group(2))  # a later session contradicted it: never searched, never told
            learnings.append(("", found.group(2)))
        elif found:
            learnings.append((found.group(1), found.group(2)))
        elif not in_learnings and line.strip():
            summary.append(line.strip())
    for text in dropped:  # a heuristic summary often repeats a learning word for word ("In the end: ...")
        summary = [line.replace(text, "…") for line in summary]
    summary = [paragraph.indexed(line) for line in summary]  # the session's words, not memgit's frame
    docs = [Doc(branch, path, 0, "note", "", title, "\n".join([title, *summary]).strip(), session, day)]
    # A superseded learning stays a unit of kind "superseded" (no type): the index keeps it without
    # its words, to know which note to read again when consolidation changes its mind.
    docs += [Doc(branch, path, i, "learning" if kind else "superseded", kind, title, text, session, day)
             for i, (kind, text) in enumerate(learnings, 1)]
    return docs


def _pinned(branch: str, path: str, meta: dict, body: str) -> list[Doc]:
    text = body.strip()
    if not text:
        return []
    day = _day(meta.get("added", "")) or _day(path.rsplit("/", 1)[-1])
    kind = meta.get("type", "")
    return [Doc(branch, path, 0, "pinned", kind if kind in TYPE_RANK else "", first_line(text), text, "", day)]


def _memory(branch: str, path: str, body: str) -> list[Doc]:
    """One unit per learning line of MEMORY.md, with the sessions that support it and its newest date.

    The `## Superseded` section is left out: what a later session contradicted is never searched.
    """
    docs, topic = [], ""
    for line in body.splitlines():
        m = _HEADING.match(line)
        if m:
            topic = m.group(2)
            continue
        if topic.strip().lower() == SUPERSEDED_SECTION:
            continue
        found = _LEARNING.match(line)
        if not found:
            continue
        text = found.group(2)
        support = _SUPPORT.search(text)
        dates = _LINK_DATE.findall(text)
        if support:
            if f", {UNREVIEWED}:" in text[support.start():]:
                continue  # a teammate's learning the reader has not accepted (memgit review --team)
            text = text[:support.start()]
        docs.append(Doc(branch, path, len(docs), "memory", found.group(1), topic, text, "",
                        max(dates) if dates else "", int(support.group(1)) if support else 1))
    return docs


def _sections(branch: str, path: str, body: str, *, kind: str, meta: dict) -> list[Doc]:
    """One unit per heading's section (its text under the heading); a file without headings is one unit."""
    day = _day(meta.get("date", "") or meta.get("added", ""))
    docs, title, lines = [], meta.get("name", ""), []

    def flush() -> None:
        text = "\n".join(lines).strip()
        if text:
            docs.append(Doc(branch, path, len(docs), kind, "", title, text, "", day))

    for line in body.splitlines():
        m = _HEADING.match(line)
        if m:
            flush()
            title, lines = m.group(2), []
        else:
            lines.append(line)
    flush()
    return docs


def subjects(docs: list[Doc]) -> list[list[Doc]]:
    """The units of one file grouped by subject, what the prompt hook weighs as a whole
    (memgit.core.recall): a session's note with its learnings; each pinned note and each section of
    an imported file. MEMORY.md, the summary and the skills gather many sessions and repeat their
    words: they are searched, never weighed as one subject."""
    if docs and docs[0].kind == "note":
        return [[d for d in docs if d.kind in ("note", "learning")]]
    return [[d] for d in docs if d.kind in ("pinned", "imported")]


def file_text(docs: list[Doc]) -> str:
    """The words of one file's units with their headings, each once, for the index of whole files;
    then the words inside the code's compound names (identifier_parts)."""
    parts = []
    for d in docs:
        if d.title and d.kind not in BORROWED_TITLE and not d.text.startswith(d.title):
            parts.append(d.title)
        parts.append(d.text)
    text = "\n".join(parts)
    inner = identifier_parts(text)
    return f"{text}\n{inner}" if inner else text


BORROWED_TITLE = ("learning", "memory")  # their title is their note's or their topic's: shown, not searched


def _day(text: str) -> str:
    m = _DATE.search(text or "")
    return m.group(1) if m else ""
