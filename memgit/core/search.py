"""Search over memory, the pure part: files cut into search units, a person's query made safe for
SQLite FTS5, and the ranking of the index's candidates (BM25 times boosts for scope, recency,
support and type).

No I/O here: memgit.store.search_index keeps the index, memgit.verbs.search puts them together.
"""

from __future__ import annotations

import math

from memgit.core import lazyre, scan
from memgit.core.record import record
from memgit.core.vocab import MAIN, PREFIX, TYPE_PATTERN, TYPE_RANK, UNREVIEWED, teammate

KINDS = ("learning", "note", "pinned", "summary", "memory", "skill", "imported")
SUMMARY_FILE = "memory_summary.md"
MEMORY_FILE = "MEMORY.md"
SUPERSEDED_SECTION = "superseded"  # MEMORY.md's `## Superseded` (memgit.core.superseded)

# How much each kind weighs against the others at equal BM25: a person's pinned words first; the
# summary repeats MEMORY.md and the notes, so it yields to them.
KIND_WEIGHT = {"pinned": 1.25, "learning": 1.0, "memory": 0.97, "skill": 1.0, "note": 0.9, "imported": 0.9,
               "summary": 0.6}
CURRENT_BOOST, MAIN_BOOST = 1.6, 1.25  # the current project's branch, then main, then the other projects (1)
RECENCY_HALF_LIFE = 180.0  # days: a note this old keeps half of its recency boost
RECENCY_GAIN = 0.3
SUPPORT_GAIN = 0.15
TYPE_GAIN = 0.02  # per step of vocab's rank: preferences and gotchas a little before facts

_LEARNING = lazyre.compile(rf"^\s*[-*]\s+\[({TYPE_PATTERN})\]\s+(.+?)\s*$")
_SUPPORT = lazyre.compile(r"\s+—\s+(\d+)\s+sessions?\b.*$")
_LINK_DATE = lazyre.compile(r"\[(\d{4}-\d{2}-\d{2})[^\]]*\]\(")
_DATE = lazyre.compile(r"(\d{4}-\d{2}-\d{2})")
_HEADING = lazyre.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


# Named tuples, not dataclasses: the prompt hook builds these at every prompt, and importing
# dataclasses (which imports inspect) costs ~15 ms of its budget; made by memgit.core.record, not
# collections.namedtuple, whose import is a sixth of a `python -c pass`.
Doc = record("Doc", "branch path unit kind type title text session date support", defaults=(1,), module=__name__,
             doc="One search unit: a piece of one file of one branch (support: the sessions behind it).")
Hit = record("Hit", "score kind type branch project date path session title snippet text person", defaults=("",),
             module=__name__, doc="One result of a search, ranked (snippet: the match marked with [[ and ]]; "
                                  "person: the teammate whose note it is, \"\" for the reader's own); ._asdict() for JSON.")


# ---- files into search units ------------------------------------------------------------------


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
    return [Doc(branch, path, 0, "pinned", kind if kind in TYPE_RANK else "", _first_line(text), text, "", day)]


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


def identifier_parts(text: str) -> str:
    """The words inside the camelCase file names of a text, each once: a person asks about "the
    sidebar" where the note names `AppInnerSidebar.tsx`.

    Only a file's name (memgit.core.scan.camel_file_names: `AppInnerSidebar.tsx`, `walCheckpoint.go`):
    the tokenizer splits snake_case and kebab-case already, but keeps a camelCase name whole, and the
    names of functions inside a file (`applyOrder`) would make chance matches.
    """
    seen: dict[str, None] = {}
    for name in scan.camel_file_names(text):
        for part in scan.humps(name):
            if len(part) >= 3 and not part.isdigit():
                seen.setdefault(part.lower())
    return " ".join(seen)


BORROWED_TITLE = ("learning", "memory")  # their title is their note's or their topic's: shown, not searched


def _day(text: str) -> str:
    m = _DATE.search(text or "")
    return m.group(1) if m else ""


def _first_line(text: str, width: int = 80) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= width else line[:width - 1].rstrip() + "…"


# ---- queries ----------------------------------------------------------------------------------

# Words that match nearly every note: dropped from a query that has others (OR-ing them in would
# rank every document and slow a search of 10,000 notes down for nothing).
STOPWORDS = frozenset("""
a an and are as at be but by for from has have how i if in into is it its my no not of on or our so
that the their then there these this to was we were what when where which who why will with you your
do does did can could should would me us them they he she him her been being about also just than too
very all any some such only own same more most other each few both up down out over under again
and or not near
""".split())


def match_expression(query: str) -> str:
    """A person's query as an FTS5 MATCH string; "" when nothing searchable is left.

    Words become quoted terms (so `AND`, `-`, `:` and other FTS5 syntax are only words), "quoted
    phrases" stay phrases, `word*` is a prefix, and an identifier such as `uv.lock` a phrase of its
    parts. The terms are OR-ed: BM25 ranks the documents that hold more of them first, and a long
    query (a prompt, a fact's sentence) still finds what shares most of its words.
    """
    return " OR ".join(_terms(query))


def match_every(query: str) -> str:
    """The terms of match_expression AND-ed: the documents holding all of them; "" for one term or none.

    BM25 gives a document the same score under either expression (it weighs the terms, not the
    operator), so the best documents holding every term are the best of the OR-ed query among them:
    a search asks for these first, and reads the thousands holding any one common word only when
    too few hold them all (memgit.store.search_reader.query).
    """
    terms = _terms(query)
    return " AND ".join(terms) if len(terms) > 1 else ""


def _terms(query: str) -> list[str]:
    """The FTS5 terms of a query, each once, stop words left out when anything else is left."""
    if query.isalnum():  # one plain word (the prompt hook looks each word up): no pattern needed
        return [f'"{query}"']
    terms: list[tuple[str, bool]] = []  # (words of one term, is a stop word)
    for phrase, chunk in scan.chunks(query.replace("\x00", " ")):
        if phrase:
            words = scan.words(phrase)  # what FTS5's unicode61 tokenizer keeps: letters and digits
            if words:
                terms.append(('"' + " ".join(words) + '"', False))
            continue
        prefix = chunk.endswith("*")
        words = scan.words(chunk)
        if not words:
            continue
        term = '"' + " ".join(words) + '"' + ("*" if prefix else "")
        stop = not prefix and len(words) == 1 and words[0].lower() in STOPWORDS
        terms.append((term, stop))
    kept = [t for t, stop in terms if not stop] or [t for t, _ in terms]
    return list(dict.fromkeys(kept))


# ---- ranking ----------------------------------------------------------------------------------


def project_of(branch: str) -> str:
    return branch[len(PREFIX):] if branch.startswith(PREFIX) else MAIN


def boost(doc: Doc, *, current: str | None, now_date: str) -> float:
    """What multiplies a document's BM25 relevance: its scope, age, support, type and kind."""
    scope = CURRENT_BOOST if doc.branch == current else MAIN_BOOST if doc.branch == MAIN else 1.0
    factor = scope * KIND_WEIGHT.get(doc.kind, 1.0)
    age = _age_days(doc.date, now_date)
    if age is not None:
        factor *= 1 + RECENCY_GAIN * 0.5 ** (max(age, 0) / RECENCY_HALF_LIFE)
    factor *= 1 + SUPPORT_GAIN * math.log2(max(doc.support, 1))
    if doc.type in TYPE_RANK:
        factor *= 1 + TYPE_GAIN * (len(TYPE_RANK) - TYPE_RANK[doc.type])
    return factor


def _age_days(day: str, now_date: str) -> int | None:
    try:
        return _ordinal(now_date) - _ordinal(day)
    except ValueError:
        return None


_DAYS_BEFORE_MONTH = (0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)  # by month, in a common year
_MONTH_DAYS = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


_ORDINALS: dict[str, int] = {}  # today's, at every candidate, and the few hundred days notes carry
REMEMBERED_DAYS = 4096


def _ordinal(day: str) -> int:
    """date.fromisoformat(day).toordinal(), remembered (a dict, not functools.lru_cache: the prompt
    hook's import of this module stays without functools).

    Raises:
        ValueError: `day` is not a date.
    """
    found = _ORDINALS.get(day)
    if found is None:
        if len(_ORDINALS) >= REMEMBERED_DAYS:
            _ORDINALS.clear()
        found = _ORDINALS[day] = _day_ordinal(day)
    return found


def _day_ordinal(day: str) -> int:
    """date.fromisoformat(day).toordinal(), computed for YYYY-MM-DD as datetime computes it: importing
    datetime is a tenth of a search's budget (2-3 ms). Any other form goes through datetime."""
    if len(day) == 10 and day[4] == day[7] == "-" and day.isascii():
        y, m, d = day[:4], day[5:7], day[8:]
        if y.isdigit() and m.isdigit() and d.isdigit():
            y, m, d = int(y), int(m), int(d)
            leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
            if y >= 1 and 1 <= m <= 12 and 1 <= d <= (29 if m == 2 and leap else _MONTH_DAYS[m]):
                y1 = y - 1
                return y1 * 365 + y1 // 4 - y1 // 100 + y1 // 400 + _DAYS_BEFORE_MONTH[m] + (m > 2 and leap) + d
    from datetime import date

    return date.fromisoformat(day).toordinal()


def rank(candidates, *, current: str | None, now_date: str, limit: int | None = None) -> list[Hit]:
    """Rank the index's candidates: BM25 relevance times the boosts, best first; one hit per text.

    Args:
        candidates: (doc, bm25, snippet) from the index; `bm25` is SQLite's (lower is better);
            (doc, bm25) pairs are taken too (the snippet is then the text's start).
        current: the current project's branch (first), or None; main comes next, then the others.
        now_date: today as YYYY-MM-DD, for recency.
    """
    scored = sorted((-round(-candidate[1] * boost(candidate[0], current=current, now_date=now_date), 4),
                     candidate[0].branch, candidate[0].path, i) for i, candidate in enumerate(candidates))
    hits, seen = [], set()  # a hit is built for the candidates looked at only
    for negative, branch, _, i in scored:  # the summary and MEMORY.md repeat a note's learnings: the best copy stays
        if len(hits) == limit:
            break
        candidate = candidates[i]
        doc = candidate[0]
        key = (branch, " ".join(scan.words(doc.text.lower())))
        if key in seen:
            continue
        seen.add(key)
        snippet = candidate[2] if len(candidate) > 2 else _first_line(doc.text, 160)
        hits.append(Hit(-negative, doc.kind, doc.type, branch, project_of(branch), doc.date, doc.path, doc.session,
                        doc.title, snippet, doc.text, teammate(doc.path) or ""))
    return hits
