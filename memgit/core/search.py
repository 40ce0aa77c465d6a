"""Search over memory, the pure part: the search units and hits, a person's query made safe for SQLite
FTS5, and the ranking of the index's candidates (BM25 times boosts for scope, recency, support and
type). How files are cut into units is memgit.core.search_units (the index's side: a search and the
prompt hook never need it, nor its regular expressions).

No I/O here: memgit.store.search_index keeps the index, memgit.verbs.search puts them together.
"""

from __future__ import annotations

import math

from memgit.core import scan
from memgit.core.record import record
from memgit.core.vocab import MAIN, PREFIX, TYPE_RANK, teammate

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

# Named tuples, not dataclasses: the prompt hook builds these at every prompt, and importing
# dataclasses (which imports inspect) costs ~15 ms of its budget; made by memgit.core.record, not
# collections.namedtuple, whose import is a sixth of a `python -c pass`.
Doc = record("Doc", "branch path unit kind type title text session date support", defaults=(1,), module=__name__,
             doc="One search unit: a piece of one file of one branch (support: the sessions behind it).")
Hit = record("Hit", "score kind type branch project date path session title snippet text person", defaults=("",),
             module=__name__, doc="One result of a search, ranked (snippet: the match marked with [[ and ]]; "
                                  "person: the teammate whose note it is, \"\" for the reader's own); ._asdict() for JSON.")


# ---- words inside names, a text's first line ------------------------------------------------------


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


def first_line(text: str, width: int = 80) -> str:
    """The first line of `text`, cut to `width` characters with an ellipsis."""
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
        snippet = candidate[2] if len(candidate) > 2 else first_line(doc.text, 160)
        hits.append(Hit(-negative, doc.kind, doc.type, branch, project_of(branch), doc.date, doc.path, doc.session,
                        doc.title, snippet, doc.text, teammate(doc.path) or ""))
    return hits
