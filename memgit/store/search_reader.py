"""The reads of the search index (memgit.store.search_index writes it): the file, opened for
reading when it is of this schema; the units `memgit search` ranks (`query`), their marked words
(`snippets`); and for the prompt hook (`Reader`) which subjects hold a word, where they are, and
their units. No dulwich, no writes: they read the index as the last sync or search left it, each
search and each prompt over one connection.

This module imports neither collections nor re: the prompt hook loads it at every prompt.
"""

from __future__ import annotations

import os
import sys

from memgit.core import search
from memgit.core.record import record
from memgit.store.sqlite import sqlite3

TYPE_CHECKING = False  # neither typing nor collections.abc (which imports collections): for annotations only
if TYPE_CHECKING:
    from collections.abc import Sequence

FILE = "search.sqlite"
SCHEMA = 8  # bump when the tables or documents() change (memgit.store.search_index): every branch is indexed again
SNIPPET_TOKENS = 14
TITLE_WEIGHT, TEXT_WEIGHT = 0.5, 1.0
_COLUMNS = "d.branch, d.path, d.unit, d.kind, d.type, d.title, {text}, d.session, d.date, d.support"  # a search.Doc
UNITS = _COLUMNS.format(text="f.text")  # f: the FTS5 table `fts`
# The text from the table FTS5 keeps it in (`fts_content`: id, c0 the title, c1 the text), as `fts` gives it:
# reading it through `fts` opens the FTS5 table first (its config and structure, ~0.2 ms of a prompt).
_KEPT_UNITS = _COLUMNS.format(text="f.c1")

# What a search found: (doc, bm25) pairs, best BM25 first (lower is better); each one's row in the index;
# and the expression they match, to mark the words of the rows shown (`snippets`).
Found = record("Found", "candidates rows match", module=__name__)


def path_of(state_dir) -> str:
    return os.path.join(os.fspath(state_dir), FILE)


def reading(state_dir) -> sqlite3.Connection | None:
    """The index opened for reading when it is one of this schema (one statement: a hook or a search
    reads it); None when there is none, or one of another schema."""
    path = path_of(state_dir)
    if not os.path.exists(path):
        return None
    try:
        db = sqlite3.connect(path, timeout=10, isolation_level=None)
    except sqlite3.DatabaseError:  # a folder in its place, an unreadable file
        return None
    try:
        if db.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == (str(SCHEMA),):
            return db
    except sqlite3.DatabaseError:  # no meta table (another file), or not a database at all
        pass
    db.close()
    return None


def heads(db: sqlite3.Connection) -> dict[str, str]:
    """Each branch and the head it was indexed at."""
    return dict(db.execute("SELECT branch, sha FROM heads").fetchall())


def indexed_heads(state_dir) -> dict[str, str]:
    """Each branch and the head it was indexed at; {} when there is no usable index."""
    try:
        db = reading(state_dir)
        if db is None:
            return {}
        try:
            return heads(db)
        finally:
            db.close()
    except sqlite3.DatabaseError:
        return {}


def projects(state_dir) -> list[dict]:
    """Each project branch's identities as its PROJECT.md held them when indexed (branch, name,
    remotes, paths: what memgit.sources.workspace.resolve_cwd takes); [] without an index."""
    from memgit.core import quickjson

    try:
        db = reading(state_dir)
        if db is None:
            return []
        try:
            states = [quickjson.loads(state) for (state,) in db.execute("SELECT state FROM heads ORDER BY branch")]
        finally:
            db.close()
    except (sqlite3.DatabaseError, ValueError):
        return []
    return [s["project"] for s in states if s.get("project")]


def filters(*, branches: Sequence[str] | None, types: Sequence[str] = (), kinds: Sequence[str] = (),
            since: str | None = None) -> tuple[list[str], list]:
    """The WHERE terms (over the `docs` table as `d`) and their arguments of a search's filters.

    branches=None is every branch, [] none; empty types or kinds are every one.
    """
    where: list[str] = []
    args: list = []
    for column, values in (("d.branch", branches), ("d.type", types), ("d.kind", kinds)):
        if values is not None and (values or column == "d.branch"):
            where.append(f"{column} IN ({','.join('?' * len(values))})")
            args += list(values)
    if since:
        where.append("d.date >= ?")
        args.append(since)
    return where, args


def query(db: sqlite3.Connection, match: str, *, every: str = "", branches: Sequence[str] | None = None,
          types: Sequence[str] = (), kinds: Sequence[str] = (), since: str | None = None, limit: int = 50) -> Found:
    """The documents matching an FTS5 expression (memgit.core.search.match_expression), best BM25 first.

    One statement: the best `limit` rows by BM25 first, then their text and columns (read for those
    rows only: SQLite would carry them for every match through its sort), over `db` (`reading`).

    Args:
        every: the same terms AND-ed (memgit.core.search.match_every), or "": when `limit` documents
            or more hold them all, the best of those are the answer, and the documents holding only
            some of the terms (thousands, for common words: SQLite scores every one) are not read.
    Returns:
        Found; no candidates when there is no index or nothing matches.
    """
    if not match:
        return Found([], [], match)
    where, args = filters(branches=branches, types=types, kinds=kinds, since=since)
    best = (f"SELECT fts.rowid AS id, bm25(fts, {TITLE_WEIGHT}, {TEXT_WEIGHT}) AS score "
            f"FROM fts{' JOIN docs d ON d.id = fts.rowid' if where else ''} "
            f"WHERE {' AND '.join(['fts MATCH ?', *where])} ORDER BY score LIMIT ?")
    sql = f"SELECT t.id, {UNITS}, t.score FROM ({best}) t CROSS JOIN docs d CROSS JOIN fts f " \
          "WHERE d.id = t.id AND f.rowid = t.id ORDER BY t.score"
    rows: list = []
    try:
        for expression in ([every] if every else []) + [match]:
            rows = db.execute(sql, [expression, *args, limit]).fetchall()
            if len(rows) >= limit:
                break
    except sqlite3.OperationalError as e:  # an expression FTS5 refuses: nothing matches it
        import logging  # only when there is something to say: the search path keeps its imports light

        logging.getLogger(__name__).debug("search %r: %s", match, e)
        return Found([], [], match)
    except sqlite3.DatabaseError:
        return Found([], [], match)
    return Found([(search.Doc(*row[1:11]), row[11]) for row in rows], [row[0] for row in rows], expression)


def snippets(db: sqlite3.Connection, match: str, rows: Sequence[int]) -> dict[int, str]:
    """Each row's text around the words `match` holds, marked with [[ ]] (FTS5's snippet); {} when the
    index cannot say (the hits then show their first line)."""
    if not rows:
        return {}
    sql = (f"SELECT rowid, snippet(fts, 1, '[[', ']]', '…', {SNIPPET_TOKENS}) FROM fts "
           f"WHERE fts MATCH ? AND rowid IN ({','.join('?' * len(rows))})")
    try:
        return dict(db.execute(sql, [match, *rows]).fetchall())
    except sqlite3.DatabaseError:
        return {}


class Reader:
    """The prompt hook's reads of the index over one connection: which subjects hold a
    word, where they are, and their units. Every method raises sqlite3.DatabaseError on a broken
    index (the hook logs it and says nothing)."""

    def __init__(self, db: sqlite3.Connection):
        self._db = db
        self._scopes: dict[str, int] | None = None

    @classmethod
    def open(cls, state_dir) -> Reader | None:
        """The index of `state_dir` opened for reading; None when there is none (or an older one)."""
        try:
            db = reading(state_dir)
        except sqlite3.DatabaseError:
            return None
        return cls(db) if db is not None else None

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Reader:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def subjects(self, branches: Sequence[str] | None = None) -> int:
        """How many subjects the index holds (in `branches`, when given)."""
        if self._scopes is None:  # a row per branch, read once
            self._scopes = dict(self._db.execute("SELECT branch, subjects FROM scopes").fetchall())
        if branches is None:
            return sum(self._scopes.values())
        return sum(self._scopes.get(b, 0) for b in set(branches))

    def holding(self, word: str) -> list[int]:
        """The subjects holding `word` (stemmed as the index stems it)."""
        return self._ids(search.match_expression(word))

    def count(self, word: str) -> int:
        """How many subjects hold `word`."""
        match = search.match_expression(word)
        if not match:
            return 0
        return self._db.execute("SELECT count(*) FROM subject_fts WHERE subject_fts MATCH ?", (match,)).fetchone()[0]

    def holding_among(self, word: str, others: Sequence[str]) -> list[int]:
        """The subjects holding `word` and at least one of `others` (FTS5 joins the two lists itself)."""
        first = search.match_expression(word)
        rest = search.match_expression(" ".join(others))
        return self._ids(f"{first} AND ({rest})") if first and rest else []

    def _ids(self, match: str) -> list[int]:
        """The subjects matching `match`, in rowid order (FTS5's own), read as one row: hundreds of one-column
        rows cost more to step through and build than their ids joined in SQLite and cut in Python."""
        if not match:
            return []
        try:
            (joined,) = self._db.execute("SELECT group_concat(rowid) FROM subject_fts WHERE subject_fts MATCH ?",
                                         (match,)).fetchone()
        except sqlite3.OperationalError:  # an expression FTS5 refuses (none should reach here): nothing holds it
            return []
        return sorted(map(int, joined.split(","))) if joined else []  # sorted: an aggregate's order is not promised

    def branches(self, ids: Sequence[int]) -> dict[int, str]:
        """The branch of each subject, from one row (memgit.store.search_index's subject_branches): a
        lookup of the subjects table per subject would read hundreds of its pages."""
        row = self._db.execute("SELECT names, of_id FROM subject_branches").fetchone()
        if row is None:
            return {}
        names, of_id = [""] + row[0].split("\n"), row[1]
        found: dict[int, str] = {}
        if sys.byteorder == "little" and len(of_id) % 2 == 0:  # read in place, two bytes at a time
            marks = memoryview(of_id).cast("H")
            for subject in ids:
                number = marks[subject] if 0 <= subject < len(marks) else 0
                if number:
                    found[subject] = names[number]
            return found
        for subject in ids:
            number = int.from_bytes(of_id[2 * subject:2 * subject + 2], "little")
            if number:
                found[subject] = names[number]
        return found

    def units(self, ids: Sequence[int]) -> dict[int, list[search.Doc]]:
        """The searchable units of each subject (its note's summary, learnings...), in their order."""
        return subject_units(self._db, ids)


def subject_units(db, ids: Sequence[int]) -> dict[int, list[search.Doc]]:
    """The searchable units of each subject of `ids` (at most SQLite's 999 variables), in their order."""
    found: dict[int, list[search.Doc]] = {}
    if not ids:
        return found
    sql = (f"SELECT u.subject, {_KEPT_UNITS} FROM subject_units u JOIN docs d ON d.id = u.doc "
           f"JOIN fts_content f ON f.id = d.id WHERE u.subject IN ({','.join('?' * len(ids))}) "
           "ORDER BY u.subject, d.unit")
    for row in db.execute(sql, list(ids)):
        found.setdefault(row[0], []).append(search.Doc(*row[1:]))
    return found
