"""Session notes as front-mattered markdown: render, parse, place and merge."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache

from memgit.core.model import LEARNING_TYPES, Learning, Note
from memgit.core.vocab import slugify

# Front-matter keys in the order DESIGN §1 gives; unknown keys a person added follow them.
NOTE_KEYS = (
    "session", "agent", "project", "cwd", "git_branch",
    "started", "ended", "outcome", "extractor", "keywords",
)
LEARNINGS_HEADING = "## Learnings"
_LEARNING_LINE = re.compile(r"^[-*] \[(?P<type>[a-z]+)\] (?P<text>.+)$")


def note_slug(title: str) -> str:
    """Return the kebab-case slug of a note's title its file is named by ("note" when nothing is left).

    Letters with accents are dropped rather than folded ("Ünïcode" -> "n-code"), as they always were:
    a resumed session's note keeps its file name.
    """
    return slugify(title, max_chars=50, max_words=6, fold=False, default="note")


def _dump_yaml(meta: dict) -> str:
    import yaml  # lazy: keeps yaml off the no-op sync and hook paths

    # safe_dump quotes any string YAML would retype (ids like 0123, "yes", dates), so a
    # value read back with the string loader is the value written.
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml: ~3x faster, same output
    return yaml.dump(meta, Dumper=dumper, sort_keys=False, allow_unicode=True, default_flow_style=None, width=1000)


def _load_yaml(text: str) -> dict:
    quick = _plain_meta(text)
    if quick is not None:
        return quick
    import yaml

    loader = getattr(yaml, "CBaseLoader", yaml.BaseLoader)  # libyaml: ~9x faster; every scalar stays a string
    data = yaml.load(text, Loader=loader)
    return data if isinstance(data, dict) else {}


# A front matter of plain `key: value` lines, as render_note writes it, is read without YAML (a tenth
# of the time: consolidating a shared project reads thousands of teammates' notes at once). A value is
# read only in the forms whose YAML reading is certain, every one a string as the BaseLoader reads it:
# empty, a plain scalar, a single-quoted one, a flow list of those. Anything else goes to YAML.
_KEY_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):(?: (.*))?")
_PLAIN = re.compile(r"[^-?:,\[\]{}#&*!|>'\"%@`\s](?:[^:#\t]|:(?! )(?=.)|(?<! )#)*")
_QUOTED = re.compile(r"'((?:[^']|'')*)'")
_FLOW_WORDS = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*(?:, [A-Za-z0-9_][A-Za-z0-9_.-]*)*")  # plain words: `[a, b.c]`
_FLOW_ITEM = re.compile(r"\s*(?:'((?:[^']|'')*)'|([^-?:,\[\]{}#&*!|>'\"%@`\s][^:#,\[\]{}'\"\t]*?))\s*(,|$)")


def _plain_meta(text: str) -> dict | None:
    """The front matter's `key: value` pairs when every line is one in a form read without YAML; None
    when one is not (YAML reads it then)."""
    meta: dict = {}
    for line in text.split("\n"):
        if not line:
            continue
        pair = _plain_line(line)
        if pair is None:
            return None
        key, value = pair
        meta[key] = list(value) if type(value) is tuple else value
    return meta


@lru_cache(maxsize=4096)
def _plain_line(line: str) -> tuple[str, str | tuple[str, ...]] | None:
    """One front matter line's (key, value) in a form read without YAML, else None. Remembered: the notes
    of one project repeat most of their lines (agent, project, cwd, git_branch, outcome, extractor); a
    flow list is kept as a tuple, and every note gets a list of its own."""
    m = _KEY_LINE.fullmatch(line)
    if m is None or not line.isprintable():
        return None
    value = (m.group(2) or "").rstrip(" ")
    if not value:
        return m.group(1), ""
    if (q := _QUOTED.fullmatch(value)) is not None:
        return m.group(1), q.group(1).replace("''", "'")
    if value.startswith("[") and value.endswith("]"):
        items = _flow_items(value[1:-1])
        return None if items is None else (m.group(1), tuple(items))
    if _PLAIN.fullmatch(value) and not value.endswith(":"):
        return m.group(1), value
    return None


def _flow_items(inner: str) -> list[str] | None:
    """The items of `[a, 'b c']`, or None when they are in another form."""
    if not inner.strip():
        return []
    if _FLOW_WORDS.fullmatch(inner):  # a note's keywords as render_note writes them (each note has its own)
        return inner.split(", ")
    items, at = [], 0
    while at < len(inner):
        m = _FLOW_ITEM.match(inner, at)
        if m is None or m.end() == at:
            return None
        items.append(m.group(1).replace("''", "'") if m.group(1) is not None else m.group(2))
        at = m.end()
        if m.group(3) == "," and at == len(inner):
            return None  # a trailing comma: YAML's to judge
    return items


def _one_line(text: str) -> str:
    """Collapse whitespace so a title, summary or learning cannot break the note's structure."""
    return " ".join(text.split())


def render_note(note: Note) -> str:
    """Render a note as front-mattered markdown, ending in a newline."""
    meta = {
        "session": note.session,
        "agent": note.agent,
        "project": note.project,
        "cwd": note.cwd or "",
        "git_branch": note.git_branch or "",
        "started": note.started or "",
        "ended": note.ended or "",
        "outcome": note.outcome,
        "extractor": note.extractor,
        "keywords": list(note.keywords),
        **{k: v for k, v in note.extra.items() if k not in NOTE_KEYS},
    }
    lines = ["---", _dump_yaml(meta).rstrip("\n"), "---", f"# {_one_line(note.title)}", ""]
    if note.summary:
        lines += [_one_line(note.summary), ""]
    lines.append(LEARNINGS_HEADING)
    lines += [f"- [{item.type}] {_one_line(item.text)}" for item in note.learnings] or ["- (none)"]
    if note.body_extra.strip():
        lines += ["", note.body_extra.strip()]
    return "\n".join(lines) + "\n"


def split_front_matter(text: str) -> tuple[dict, str]:
    """Split `---` front matter from the body; no front matter gives ({}, text).

    Raises:
        ValueError: the front matter is not valid YAML.
    """
    import yaml

    text = text.lstrip("\ufeff")
    if not text.startswith("---"):
        return {}, text
    end = text.find("\n---", 3)
    if end < 0:
        return {}, text
    try:
        meta = _load_yaml(text[3:end])
    except yaml.YAMLError as e:
        raise ValueError(f"bad front matter: {e}") from e
    body = text[end + 4:]
    return meta, body.split("\n", 1)[1] if "\n" in body else ""


def parse_note(text: str) -> Note:
    """Parse a note written by render_note (or edited by a person).

    Raises:
        ValueError: the front matter is not valid YAML or has no `session`.
    """
    meta, body = split_front_matter(text)
    if not meta.get("session"):
        raise ValueError("not a session note: no `session` in the front matter")
    title, summary_lines, learnings, extra_lines = "", [], [], []
    section = "head"
    for line in body.splitlines():
        if section == "head" and line.startswith("# ") and not title:
            title, section = line[2:].strip(), "summary"
            continue
        stripped = line.strip()
        if stripped == LEARNINGS_HEADING and section in ("head", "summary"):
            section = "learnings"
        elif section == "summary":
            summary_lines.append(line)
        elif section == "learnings":
            match = _LEARNING_LINE.match(stripped)
            if match and match["type"] in LEARNING_TYPES:
                learnings.append(Learning(match["type"], match["text"].strip()))
            elif stripped and stripped != "- (none)":
                section = "extra"
                extra_lines.append(line)
        elif section == "extra":
            extra_lines.append(line)
    keywords = meta.get("keywords") or []
    return Note(
        session=meta["session"],
        agent=meta.get("agent", ""),
        project=meta.get("project", ""),
        title=title,
        summary=" ".join(s.strip() for s in summary_lines if s.strip()),
        learnings=learnings,
        cwd=meta.get("cwd") or None,
        git_branch=meta.get("git_branch") or None,
        started=meta.get("started") or None,
        ended=meta.get("ended") or None,
        outcome=meta.get("outcome", "uncertain"),
        extractor=meta.get("extractor", ""),
        keywords=list(keywords) if isinstance(keywords, list) else [str(keywords)],
        slug=note_slug(title) if title else "",
        extra={k: v for k, v in meta.items() if k not in NOTE_KEYS},
        body_extra="\n".join(extra_lines).strip(),
    )


def note_path(note: Note, fallback_date: str) -> str:
    """Return where a note lives: sessions/YYYY/MM/<date>-<slug>-<id8>.md (sharded by month)."""
    date = (note.started or note.ended or fallback_date)[:10]
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", date):
        date = fallback_date[:10]
    slug = note.slug or note_slug(note.title)
    return f"sessions/{date[:4]}/{date[5:7]}/{date}-{slug}-{note.id8}.md"


def merge_notes(old: Note, new: Note) -> Note:
    """Fold the note of a resumed session's new range into the note of its earlier ranges."""
    seen = {(item.type, item.text.lower()) for item in old.learnings}
    learnings = list(old.learnings)
    for item in new.learnings:
        if (item.type, item.text.lower()) not in seen:
            seen.add((item.type, item.text.lower()))
            learnings.append(item)
    summary = old.summary
    if new.summary and new.summary not in summary:
        summary = f"{summary} Resumed: {new.summary}".strip()
    keywords = list(dict.fromkeys([*old.keywords, *new.keywords]))[:8]
    return replace(
        old,
        summary=summary,
        learnings=learnings,
        ended=new.ended or old.ended,
        outcome=new.outcome,
        keywords=keywords,
        extractor=new.extractor,
        git_branch=old.git_branch or new.git_branch,
    )
