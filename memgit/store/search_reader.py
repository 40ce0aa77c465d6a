"""The reads of the search index (memgit.store.search_index, which writes it): the units `memgit
search` ranks (`query`), and for the prompt hook (`Reader`) which subjects hold a word, where they
are, and their units. No dulwich, no writes: they read the index as the last sync or search left it.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence

from memgit.core import search
from memgit.store.search_index import SNIPPET_TOKENS, TEXT_WEIGHT, TITLE_WEIGHT, UNITS, filters, reading
from memgit.store.sqlite import sqlite3



# What a search found: (doc, bm25) pairs, best BM25 first (lower is better); each one's row in the index;
# and the expression they match, to mark the words of the rows shown (`snippets`).
Found = namedtuple("Found", "candidates rows match")


def query(state_dir, match: str, *, every: str = "", branches: Sequence[str] | None = None,
          types: Sequence[str] = (), kinds: Sequence[str] = (), since: str | None = None, limit: int = 50) -> Found:
    """The documents matching an FTS5 expression (memgit.core.search.match_expression), best BM25 first.

    One statement: the best `limit` rows by BM25 first, then their text and columns (read for those
    rows only: SQLite would carry them for every match through its sort).

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
        db = reading(state_dir)
        if db is None:
            return Found([], [], match)
        try:
            for expression in ([every] if every else []) + [match]:
                rows = db.execute(sql, [expression, *args, limit]).fetchall()
                if len(rows) >= limit:
                    break
        finally:
            db.close()
    except sqlite3.OperationalError as e:  # an expression FTS5 refuses: nothing matches it
        import logging  # only when there is something to say: the search path keeps its imports light

        logging.getLogger(__name__).debug("search %r: %s", match, e)
        return Found([], [], match)
    except sqlite3.DatabaseError:
        return Found([], [], match)
    return Found([(search.Doc(*row[1:11]), row[11]) for row in rows], [row[0] for row in rows], expression)


def snippets(state_dir, match: str, rows: Sequence[int]) -> dict[int, str]:
    """Each row's text around the words `match` holds, marked with [[ ]] (FTS5's snippet); {} when the
    index cannot say (the hits then show their first line)."""
    if not rows:
        return {}
    sql = (f"SELECT rowid, snippet(fts, 1, '[[', ']]', '…', {SNIPPET_TOKENS}) FROM fts "
           f"WHERE fts MATCH ? AND rowid IN ({','.join('?' * len(rows))})")
    try:
        db = reading(state_dir)
        if db is None:
            return {}
        try:
            return dict(db.execute(sql, [match, *rows]).fetchall())
        finally:
            db.close()
    except sqlite3.DatabaseError:
        return {}


class Reader:
    """The prompt hook's reads of the index over one connection: which subjects hold a
    word, where they are, and their units. Every method raises sqlite3.DatabaseError on a broken
    index (the hook logs it and says nothing)."""

    def __init__(self, db: sqlite3.Connection):
        self._db = db

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
        if branches is None:
            return self._db.execute("SELECT coalesce(sum(subjects), 0) FROM scopes").fetchone()[0]
        marks = ",".join("?" * len(branches))
        return self._db.execute(f"SELECT coalesce(sum(subjects), 0) FROM scopes WHERE branch IN ({marks})",
                                list(branches)).fetchone()[0]

    def holding(self, word: str, limit: int) -> list[int] | None:
        """The subjects holding `word` (stemmed as the index stems it); None when more than `limit` do."""
        match = search.match_expression(word)
        # Counted first, without a row for Python each: a common word's thousands are never read.
        if self._db.execute("SELECT count(*) FROM (SELECT rowid FROM subject_fts WHERE subject_fts MATCH ? LIMIT ?)",
                            (match or '""', limit + 1)).fetchone()[0] > limit:
            return None
        return self._ids(match, None)

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
        return self._ids(f"{first} AND ({rest})", None) if first and rest else []

    def _ids(self, match: str, limit: int | None) -> list[int]:
        if not match:
            return []
        sql = "SELECT rowid FROM subject_fts WHERE subject_fts MATCH ?" + (" LIMIT ?" if limit is not None else "")
        try:
            return [r[0] for r in self._db.execute(sql, (match,) if limit is None else (match, limit))]
        except sqlite3.OperationalError:  # an expression FTS5 refuses (none should reach here): nothing holds it
            return []

    def branches(self, ids: Sequence[int]) -> dict[int, str]:
        """The branch of each subject."""
        found: dict[int, str] = {}
        for start in range(0, len(ids), 500):
            chunk = list(ids[start:start + 500])
            found.update(self._db.execute(f"SELECT id, branch FROM subjects WHERE id IN ({','.join('?' * len(chunk))})",
                                          chunk))
        return found

    def units(self, ids: Sequence[int]) -> dict[int, list[search.Doc]]:
        """The searchable units of each subject (its note's summary, learnings...), in their order."""
        if not ids:
            return {}
        found: dict[int, list[search.Doc]] = {}
        rows = self._db.execute(f"SELECT u.subject, {UNITS} FROM subject_units u JOIN docs d ON d.id = u.doc "
                                f"JOIN fts f ON f.rowid = d.id WHERE u.subject IN ({','.join('?' * len(ids))}) "
                                "ORDER BY u.subject, d.unit", list(ids))
        for row in rows:
            found.setdefault(row[0], []).append(search.Doc(*row[1:]))
        return found
